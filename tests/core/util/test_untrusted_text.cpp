// Names we did not write, made safe as a path, for a terminal, in CSV, HTML and Markdown.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "mirror/util/untrusted_text.h"

using namespace mirror;
using namespace std::string_literals;

namespace {
bool is_path_slug(const std::string& s) {
  if (s.empty() || s.size() > kMaxSlugLength || s.front() == '.' || s.front() == '-') return false;
  if (s.find("..") != std::string::npos) return false;
  for (unsigned char c : s)
    if (!(std::isalnum(c) && c < 0x80) && c != '-' && c != '_' && c != '.') return false;
  return true;
}
}  // namespace

TEST(PathSlug, TraversalBecomesOneNameInside) {
  EXPECT_EQ(path_slug("../../../../tmp/x"), "tmp-x");
  EXPECT_EQ(path_slug("/etc/passwd"), "etc-passwd");
  EXPECT_EQ(path_slug("a/../b"), "a-b");
  EXPECT_EQ(path_slug("a..b...c"), "a.b.c");
  EXPECT_EQ(path_slug(".hidden"), "hidden");
  EXPECT_EQ(path_slug("-rf"), "rf");
}

TEST(PathSlug, KeepsWhatIsAlreadySafe) {
  EXPECT_EQ(path_slug("reuters-conv1d"), "reuters-conv1d");
  EXPECT_EQ(path_slug("my_model.v2"), "my_model.v2");
  EXPECT_EQ(path_slug("Spirals MLP (small)"), "Spirals-MLP-small");
}

TEST(PathSlug, ControlCharactersAndUnicodeBecomeDashes) {
  EXPECT_EQ(path_slug("a\0b"s), "a-b");
  EXPECT_EQ(path_slug("a\nb\rc\x1b[31md"), "a-b-c-31md");
  EXPECT_EQ(path_slug("modèle"), "mod-le");
  EXPECT_EQ(path_slug("a\u202eb"), "a-b");
}

TEST(PathSlug, NothingLeftGivesTheFallback) {
  for (const std::string& name : {""s, "."s, ".."s, "///"s, "模型"s, "\0\0"s, "-.-"s}) {
    EXPECT_EQ(path_slug(name), "run") << name;
    EXPECT_EQ(path_slug(name, "sweep-1"), "sweep-1") << name;
  }
  EXPECT_EQ(path_slug("", "../.."), "run");  // a fallback is made a slug too
}

TEST(PathSlug, LongNamesAreCut) {
  EXPECT_EQ(path_slug(std::string(10000, 'a')), std::string(kMaxSlugLength, 'a'));
  EXPECT_EQ(path_slug(std::string(10000, '/') + "x"), "x");
  EXPECT_EQ(path_slug(std::string(63, 'a') + "-b"), std::string(63, 'a'));  // no trailing '-' after the cut
  EXPECT_EQ(path_slug("abcdef", "run", 3), "abc");
}

TEST(PathSlug, EveryByteGivesASlug) {
  for (int c = 0; c < 256; ++c) {
    const std::string one(1, static_cast<char>(c));
    EXPECT_TRUE(is_path_slug(path_slug(one))) << c;
    EXPECT_TRUE(is_path_slug(path_slug("x" + one + one + "y"))) << c;
  }
}

TEST(ChildPath, RefusesAnythingButOneName) {
  EXPECT_EQ(child_path("/runs", "20261130-a").string(), "/runs/20261130-a");
  for (const std::string& bad : {""s, "."s, ".."s, "a/b"s, "../x"s, "/abs"s, "a\0b"s})
    EXPECT_THROW(child_path("/runs", bad), std::invalid_argument) << bad;
}

TEST(TerminalText, ControlCharactersBecomeVisibleEscapes) {
  EXPECT_EQ(terminal_text("run\x1b[2J\x1b]0;owned\x07"), "run\\x1b[2J\\x1b]0;owned\\x07");
  EXPECT_EQ(terminal_text("a\rb"), "a\\rb");
  EXPECT_EQ(terminal_text("a\nb\tc"), "a\\nb\\tc");
  EXPECT_EQ(terminal_text("a\nb\tc", LineBreaks::kKeep), "a\nb\tc");
  EXPECT_EQ(terminal_text("a\rb", LineBreaks::kKeep), "a\\rb");  // a lone CR overwrites the line
  EXPECT_EQ(terminal_text("a\0b\x7f"s), "a\\x00b\\x7f");
}

TEST(TerminalText, C1ControlsBidiOverridesAndBrokenUtf8AreEscaped) {
  EXPECT_EQ(terminal_text("a\xc2\x9b" "31mb"), "a\\u009b31mb");  // C1 CSI, as UTF-8
  EXPECT_EQ(terminal_text("a\x9b" "31m"), "a\\x9b31m");      // and as a raw byte
  EXPECT_EQ(terminal_text("evil\u202etxt.exe"), "evil\\u202etxt.exe");
  EXPECT_EQ(terminal_text("\u2066x\u2069\u200f"), "\\u2066x\\u2069\\u200f");
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\\xc0\\xaf");      // overlong '/'
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_text("\xe2\x82"), "\\xe2\\x82");      // cut short
}

TEST(TerminalText, PrintableTextIsUnchanged) {
  for (const std::string& s : {"reuters-conv1d"s, "modèle 模型 ✓"s, "lr=0.01 batch=32"s, "C:\\runs"s, ""s})
    EXPECT_EQ(terminal_text(s), s);
}

TEST(CsvField, QuotesWhatRfc4180Requires) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\rb"), "\"a\rb\"");  // a lone CR too
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field("padded "), "\"padded \"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(CsvField, FormulasAreTextNumbersStayNumbers) {
  EXPECT_EQ(csv_field("=HYPERLINK(\"http://x\",\"y\")"), "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
  EXPECT_EQ(csv_field("+cmd"), "\"'+cmd\"");
  EXPECT_EQ(csv_field("-2+3+cmd|' /C calc'!A0"), "\"'-2+3+cmd|' /C calc'!A0\"");
  EXPECT_EQ(csv_field("@SUM(A1)"), "\"'@SUM(A1)\"");
  EXPECT_EQ(csv_field("\tx"), "\"'\tx\"");
  EXPECT_EQ(csv_field("-0.25"), "-0.25");
  EXPECT_EQ(csv_field("-1e-3"), "-1e-3");
  EXPECT_EQ(csv_field("-"), "-");  // no value
}

TEST(HtmlText, EscapesEveryMarkupCharacter) {
  EXPECT_EQ(html_text("<script>alert(1)</script>"), "&lt;script&gt;alert(1)&lt;/script&gt;");
  EXPECT_EQ(html_text("<img src=x onerror=\"alert('x')\">"),
            "&lt;img src=x onerror=&quot;alert(&#39;x&#39;)&quot;&gt;");
  EXPECT_EQ(html_text("a & b &lt;"), "a &amp; b &amp;lt;");
}

TEST(MarkdownText, NoMarkupLinkImageOrCellBreakSurvives) {
  EXPECT_EQ(markdown_text("<script>x</script>"), "&lt;script&gt;x&lt;/script&gt;");
  EXPECT_EQ(markdown_text("<img src=x onerror=alert(1)>"), "&lt;img src=x onerror=alert\\(1\\)&gt;");
  EXPECT_EQ(markdown_text("[x](javascript:alert(1))"), "\\[x\\]\\(javascript:alert\\(1\\)\\)");
  EXPECT_EQ(markdown_text("![i](http://x/y.png)"), "!\\[i\\]\\(http://x/y.png\\)");
  EXPECT_EQ(markdown_text("<javascript:alert(1)>"), "&lt;javascript:alert\\(1\\)&gt;");
  EXPECT_EQ(markdown_text("a|b"), "a\\|b");
  EXPECT_EQ(markdown_text("`code` *b* _i_ ~s~ \\"), "\\`code\\` \\*b\\* \\_i\\_ \\~s\\~ \\\\");
  EXPECT_EQ(markdown_text("row\n| x |\r\nnext"), "row \\| x \\|  next");
  EXPECT_EQ(markdown_text("a & b"), "a &amp; b");
  EXPECT_EQ(markdown_text("lr=0.01 modèle"), "lr=0.01 modèle");
  EXPECT_EQ(markdown_text("optimizer.learning_rate"), "optimizer.learning_rate");
  EXPECT_EQ(markdown_text("_x_ a_ _b a__b"), "\\_x\\_ a\\_ \\_b a\\_\\_b");
}

// Text that starts a paragraph (the scaling study's, a run's note) opens no block either.
TEST(MarkdownText, NoBlockOpensWhereTheTextStartsAParagraph) {
  EXPECT_EQ(markdown_text("# big"), "\\# big");
  EXPECT_EQ(markdown_text("- item"), "\\- item");
  EXPECT_EQ(markdown_text("+ item"), "\\+ item");
  EXPECT_EQ(markdown_text("---"), "\\---");
  EXPECT_EQ(markdown_text("=== x"), "\\=== x");
  EXPECT_EQ(markdown_text("12. item"), "12\\. item");
  EXPECT_EQ(markdown_text("3) item"), "3\\) item");
  EXPECT_EQ(markdown_text("    code"), "&#32;   code");
  EXPECT_EQ(markdown_text("  # x"), "&#32; \\# x");
  // Further in, the same characters are text.
  EXPECT_EQ(markdown_text("run #2 - 1.5x"), "run #2 - 1.5x");
  EXPECT_EQ(markdown_text("3 replicas"), "3 replicas");
}
