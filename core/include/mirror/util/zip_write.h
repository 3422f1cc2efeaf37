#pragma once
// Writing a zip archive in memory (libzip): what a .keras file and a Keras-format .npz are.

#include <string>
#include <utility>
#include <vector>

namespace mirror {

// The bytes of a zip archive holding `members` ({name, bytes}) in that order. `compress`: deflate
// them; else store them (as Keras stores a .keras file's members). Throws ConfigError when this
// build has no libzip (MIRROR_WITH_ZIP=OFF), std::runtime_error when libzip fails.
std::string zip_archive(const std::vector<std::pair<std::string, std::string>>& members, bool compress = false);

}  // namespace mirror
