#include "mirror/data/keras_npz_write.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <torch/torch.h>

#include <stdexcept>

#include "mirror/data/batch.h"
#include "mirror/data/dataset.h"
#include "mirror/data/npy.h"
#include "mirror/util/error.h"
#include "mirror/util/zip_write.h"

namespace mirror {

namespace {
void put_u32(std::string& out, uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}
void put_int(std::string& out, int64_t v) {
  if (v >= 0 && v < 256) {
    out += 'K';  // BININT1
    out.push_back(static_cast<char>(v));
  } else if (v >= INT32_MIN && v <= INT32_MAX) {
    out += 'J';  // BININT
    put_u32(out, static_cast<uint32_t>(static_cast<int32_t>(v)));
  } else {
    throw std::invalid_argument(fmt::format("pickle_object_array: {} does not fit 32 bits", v));
  }
}
void put_text(std::string& out, const std::string& s) {
  out += 'X';  // BINUNICODE
  put_u32(out, static_cast<uint32_t>(s.size()));
  out += s;
}
void put_global(std::string& out, const char* module, const char* name) { out += fmt::format("c{}\n{}\n", module, name); }

// .npy version 1.0 of an object array: the header, then its pickle.
std::string npy_object(const std::vector<std::vector<int64_t>>& items) {
  std::string header = fmt::format("{{'descr': '|O', 'fortran_order': False, 'shape': ({},), }}", items.size());
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  return out + header + pickle_object_array(items);
}
}  // namespace

std::string pickle_object_array(const std::vector<std::vector<int64_t>>& items) {
  std::string p("\x80\x03", 2);  // PROTO 3
  put_global(p, "numpy.core.multiarray", "_reconstruct");
  put_global(p, "numpy", "ndarray");
  put_int(p, 0);
  p += '\x85';       // (0,)
  p += "C\x01" "b";  // b'b'
  p += "\x87R";      // _reconstruct(ndarray, (0,), b'b')
  p += '(';          // the state: (1, (n,), dtype('O8', False, True) built, False, [items])
  put_int(p, 1);
  put_int(p, static_cast<int64_t>(items.size()));
  p += '\x85';
  put_global(p, "numpy", "dtype");
  put_text(p, "O8");
  p += "\x89\x88\x87R";  // dtype('O8', False, True)
  p += '(';              // its state: (3, '|', None, None, None, -1, -1, 63)
  put_int(p, 3);
  put_text(p, "|");
  p += "NNN";
  put_int(p, -1);
  put_int(p, -1);
  put_int(p, 63);
  p += "tb";
  p += '\x89';  // not Fortran order
  p += ']';     // the items
  if (!items.empty()) {
    p += '(';
    for (const auto& item : items) {
      p += ']';
      if (!item.empty()) {
        p += '(';
        for (int64_t v : item) put_int(p, v);
        p += 'e';  // APPENDS
      }
    }
    p += 'e';
  }
  p += "tb.";  // the state tuple, BUILD, STOP
  return p;
}

std::string keras_text_npz(const std::vector<std::vector<int64_t>>& sequences, const std::vector<int64_t>& labels) {
  if (sequences.size() != labels.size())
    throw std::invalid_argument(fmt::format("keras_text_npz: {} sequences, {} labels", sequences.size(), labels.size()));
  const std::vector<int64_t> shape = {static_cast<int64_t>(labels.size())};
  return zip_archive({{"x.npy", npy_object(sequences)},
                      {"y.npy", npy_bytes("<i8", shape, labels.data(), labels.size() * sizeof(int64_t))}});
}

namespace {
// Keras' processed ids (reuters.load_data's defaults): 0 pads, 1 starts, 2 is out of vocabulary,
// word ranks from index_from = 3.
constexpr int64_t kPad = 0, kStart = 1, kIndexFrom = 3;
}  // namespace

void text_examples(const Dataset& d, std::vector<std::vector<int64_t>>& sequences, std::vector<int64_t>& labels) {
  if (d.info().kind != InputKind::kTokens)
    throw ConfigError(fmt::format("{} is not a text dataset (token ids); Keras' text layout holds only those", d.info().name));
  for (const Split split : {Split::kTrain, Split::kValidation}) {
    const int64_t n = d.size(split);
    if (n == 0) continue;
    const Batch b = d.slice(split, 0, n);
    const auto x = b.x.to(torch::kInt64).contiguous();
    const auto y = b.y.to(torch::kInt64).contiguous();
    const int64_t steps = x.size(1);
    const auto* xs = static_cast<const int64_t*>(x.data_ptr());
    const auto* ys = static_cast<const int64_t*>(y.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      std::vector<int64_t> seq;
      bool started = false;
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t id = xs[i * steps + t];
        if (id == kPad) continue;
        if (id == kStart && !started) {  // Keras' load_data puts it back
          started = true;
          continue;
        }
        if (id < kIndexFrom)
          throw ConfigError(fmt::format("{} example {}: id {} is Keras' start or out-of-vocabulary mark inside a "
                                        "sequence; Keras' layout stores word ranks only", d.info().name, i, id));
        started = true;
        seq.push_back(id - kIndexFrom);
      }
      sequences.push_back(std::move(seq));
      labels.push_back(ys[i]);
    }
  }
}

}  // namespace mirror
