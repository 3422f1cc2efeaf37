#pragma once
// Reading a .jsonl file that another process is still appending to (metrics.jsonl,
// timeline.jsonl): only what is new since the last read, whole lines only. Private to core/src/runs.

#include <algorithm>
#include <cstdint>
#include <string>

#include "mirror/util/json_file.h"
#include "mirror/util/untrusted_file.h"

namespace mirror {

// Reads `file` from `offset` to `size`, handing each complete line to `apply`; a line still being
// written waits in `pending`. In pieces, so that a stranger's file with a line of gigabytes is
// never held whole: a line longer than a metrics line may be is dropped (and counted in `skipped`)
// as it is read, `dropping` saying that the rest of it is still to come.
template <typename Apply>
void read_new_lines(UntrustedFile& file, std::uintmax_t size, std::uintmax_t& offset, std::string& pending,
                    bool& dropping, int64_t& skipped, Apply apply) {
  constexpr std::uintmax_t kPiece = 4 * 1024 * 1024;
  std::string piece;  // one buffer for every piece
  while (offset < size) {
    file.read(offset, std::min(kPiece, size - offset), piece);
    if (piece.empty()) break;
    offset += piece.size();
    size_t begin = 0;
    if (dropping) {
      const size_t nl = piece.find('\n');
      if (nl == std::string::npos) continue;
      dropping = false;
      begin = nl + 1;
    }
    pending.append(piece, begin);
    begin = 0;
    for (size_t nl; (nl = pending.find('\n', begin)) != std::string::npos; begin = nl + 1)
      apply(pending.substr(begin, nl - begin));
    pending.erase(0, begin);
    if (pending.size() > kMetricsLineJson.max_bytes) {
      pending.clear();
      dropping = true;
      ++skipped;
    }
  }
}

}  // namespace mirror
