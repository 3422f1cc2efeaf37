#pragma once
// Where the tests find the repository's files. Compiled into test_paths.cpp alone (the one file
// that carries the checkout's absolute path), so that every other test compiles to the same
// bits in any clone and a fresh clone's build hits ccache.

#include <string>

namespace mirror::testing {

std::string fixtures_dir();  // tests/fixtures
std::string source_dir();    // the checkout

}  // namespace mirror::testing
