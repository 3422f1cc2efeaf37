#include "test_paths.h"

namespace mirror::testing {

std::string fixtures_dir() { return MIRROR_FIXTURES_DIR; }
std::string source_dir() { return MIRROR_SOURCE_DIR; }

}  // namespace mirror::testing
