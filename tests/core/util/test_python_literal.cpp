// Names we did not write, as Python string literals and checked identifiers.
#include "mirror/util/python_literal.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "python_runner.h"
#include "test_helpers.h"

using namespace mirror;
using mirror::testing::python_has;
using mirror::testing::run_python;
using mirror::testing::TempDir;
using mirror::testing::hex_bytes;

namespace {
bool is_printable_ascii(const std::string& s) {
  for (char c : s)
    if (c < 0x20 || c > 0x7e) return false;
  return true;
}

const auto kAllowAnyName = [](std::string_view) { return true; };

// Byte strings that a model file can hold as names, valid UTF-8 or not.
const std::vector<std::string> kHostileBytes = {
    "dense",
    "a\nb\r\tc",
    "\"); import os; os.system(\"touch /tmp/pwned\") #",
    "'''\"\"\"\\",
    std::string("nul\0esc\x1b[31mdel\x7f", 16),
    "\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87",          // é 中文
    "\xe2\x80\x8f\xe2\x80\xae\xe2\x80\xa8\xe2\x80\xa9",  // RLM, RLO, LINE and PARAGRAPH SEPARATOR
    "\xf0\x9f\x98\x80",                          // U+1F600
    "\xff\xfe \xc3 \xe2\x80 \xed\xa0\x80 \xc0\xaf \xf4\x90\x80\x80",  // not UTF-8: stray, cut, surrogate, overlong, past U+10FFFF
    "",
};
}  // namespace

TEST(PythonLiteral, EscapesEverythingButPrintableAscii) {
  EXPECT_EQ(python_string_literal("conv1d"), "\"conv1d\"");
  EXPECT_EQ(python_string_literal("a\nb\r\tc"), "\"a\\nb\\r\\tc\"");
  EXPECT_EQ(python_string_literal("say \"hi\" \\ 'x'"), "\"say \\\"hi\\\" \\\\ 'x'\"");
  EXPECT_EQ(python_string_literal(std::string("\0\x1b\x7f", 3)), "\"\\x00\\x1b\\x7f\"");
  EXPECT_EQ(python_string_literal("\xc3\xa9\xe4\xb8\xad\xe2\x80\xa8\xe2\x80\x8f"), "\"\\xe9\\u4e2d\\u2028\\u200f\"");
  EXPECT_EQ(python_string_literal("\xf0\x9f\x98\x80"), "\"\\U0001f600\"");
  EXPECT_EQ(python_string_literal("\xff\xc3"), "\"\\udcff\\udcc3\"");  // bytes that are not UTF-8
  for (const auto& s : kHostileBytes) EXPECT_TRUE(is_printable_ascii(python_string_literal(s))) << hex_bytes(s);
}

TEST(PythonLiteral, PythonReadsBackTheSameBytes) {
  if (!python_has()) GTEST_SKIP() << "no python3 here";
  TempDir dir;
  std::string lines;
  for (const auto& s : kHostileBytes) lines += python_string_literal(s) + "\n";
  mirror::testing::write_file(dir.path() / "literals.txt", lines);
  const auto out = run_python(dir.path(),
                              "import ast\n"
                              "for line in open('literals.txt', encoding='ascii').read().splitlines():\n"
                              "    print(ast.literal_eval(line).encode('utf-8', 'surrogateescape').hex())\n");
  ASSERT_TRUE(out.has_value());
  std::string want;
  for (const auto& s : kHostileBytes) want += hex_bytes(s) + "\n";
  EXPECT_EQ(*out, want);
}

TEST(PythonIdentifiers, KeepOrdinaryNamesAndDeriveTheRest) {
  const std::vector<std::string> names = {"conv1d", "dense_1", "a b", "a_b", "class", "match", "é", "_private",
                                          "__class__", "1st", "x\n\"); import os #", std::string(10000, 'w')};
  const std::vector<std::string> fallbacks(names.size(), "dense");
  const auto ids = unique_python_identifiers(names, fallbacks, kAllowAnyName);
  EXPECT_EQ(ids, (std::vector<std::string>{"conv1d", "dense_1", "a_b_1", "a_b", "dense", "match", "dense_2",
                                           "private", "class__", "dense_3", "x_import_os",
                                           std::string(kMaxPythonIdentifier, 'w')}));
  // An ordinary name up to kMaxKeptPythonIdentifier long keeps its spelling (and its state-dict keys).
  const std::string long_ordinary(kMaxKeptPythonIdentifier, 'v');
  EXPECT_EQ(unique_python_identifiers({long_ordinary}, {}, kAllowAnyName), std::vector<std::string>{long_ordinary});
}

TEST(PythonIdentifiers, AreValidDistinctAndNeverWhatTheCallerRefuses) {
  std::vector<std::string> names = kHostileBytes;
  for (const char* s : {"forward", "eval", "training", "_modules", "__init__", "lambda", "def", "None", "type", "_",
                        "forward", "a b", "a_b", "a__b", "a  b"})
    names.push_back(s);
  const std::string long_name(10000, 'n');
  names.push_back(long_name);
  names.push_back(long_name + "\n");
  const std::set<std::string_view> refused = {"forward", "eval", "training", "dense"};
  const auto ids = unique_python_identifiers(names, {}, [&](std::string_view id) { return !refused.count(id); });
  ASSERT_EQ(ids.size(), names.size());
  std::set<std::string> seen;
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto& id = ids[i];
    EXPECT_TRUE(is_python_identifier(id) && (!is_python_keyword(id) || is_python_soft_keyword(id)) && id[0] != '_')
        << id;
    EXPECT_LE(id.size(), kMaxKeptPythonIdentifier) << id;
    EXPECT_FALSE(refused.count(id)) << id;
    EXPECT_TRUE(seen.insert(id).second) << "twice: " << id;
  }
  EXPECT_THROW(unique_python_identifiers({"a", "b"}, {"c"}, kAllowAnyName), std::invalid_argument);
}

TEST(PythonIdentifiers, KnowPythonsKeywords) {
  for (const char* k : {"class", "def", "lambda", "None", "True", "await", "nonlocal", "match", "case", "type"})
    EXPECT_TRUE(is_python_keyword(k)) << k;
  for (const char* k : {"_", "dense", "Class", "print"}) EXPECT_FALSE(is_python_keyword(k)) << k;
  if (!python_has()) GTEST_SKIP() << "no python3 here";
  TempDir dir;
  const auto out = run_python(dir.path(), "import keyword\nprint(' '.join(keyword.kwlist + keyword.softkwlist))\n");
  ASSERT_TRUE(out.has_value());
  std::istringstream words(*out);
  for (std::string k; words >> k;) {
    if (k == "_") continue;  // a name, as far as attributes go
    EXPECT_TRUE(is_python_keyword(k)) << k << " is a keyword of this machine's Python";
  }
}
