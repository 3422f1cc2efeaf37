#pragma once
// Reading members of a zip archive someone sent (a .keras file), held in memory, the way an
// untrusted file is read here: every entry's name, kind and size checked before a byte of it is
// inflated, and nothing but the members asked for is read.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mirror {

// The members `wanted` of the zip archive `archive` (its bytes; `what` names it in messages).
// Throws DataError, naming `what` and the entry, when the archive is not a readable zip, holds
// more than `max_entries` entries, an entry whose name is absolute, climbs out ("..") or holds a
// backslash or a control character, a symbolic link, an entry not in `allowed` (names, or folder
// prefixes ending in '/'), a wanted member larger than `max_member_bytes` (as declared, and as
// inflated), or lacks a wanted member. Throws ConfigError when this build has no libzip.
std::map<std::string, std::string> read_zip_members(const std::string& archive, const std::string& what,
                                                    const std::vector<std::string>& wanted,
                                                    const std::vector<std::string>& allowed, int64_t max_entries,
                                                    uint64_t max_member_bytes);

}  // namespace mirror
