// The table layout of `omnigraph query --format table` (table_layout.h).
#include "cli/table_layout.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>

namespace omnigraph::cli {
namespace {

using W = std::vector<size_t>;

TEST(TableLayout, KeepsNaturalWidthsWhenTheyFitOrWithoutALimit) {
  EXPECT_EQ(FitColumns({10, 20, 3}, 0), (W{10, 20, 3}));
  EXPECT_EQ(FitColumns({10, 20, 3}, 37), (W{10, 20, 3}));  // 33 + 2 gaps of 2
  EXPECT_EQ(FitColumns({}, 10), W{});
}

TEST(TableLayout, ShrinksTheWidestColumnsFirst) {
  // 80 wide: 10 + 100 + 8 + 2 gaps = 122; only the 100-wide column shrinks, to 58.
  EXPECT_EQ(FitColumns({10, 100, 8}, 80), (W{10, 58, 8}));
  // two wide columns share the space; the narrow one is untouched: 4 + 2*2 gaps = 8, 72 left.
  EXPECT_EQ(FitColumns({4, 50, 90}, 80), (W{4, 36, 36}));
  // 73 left: the first column at the cap gets the extra column
  EXPECT_EQ(FitColumns({4, 50, 90}, 81), (W{4, 37, 36}));
  // when the cap falls below a column's width, that column shrinks too
  EXPECT_EQ(FitColumns({30, 40, 50}, 64), (W{20, 20, 20}));
  for (size_t width : {26u, 33u, 47u, 80u, 133u}) {
    W w = FitColumns({12, 70, 9, 300}, width);
    size_t total = 3 * kColumnGap;
    for (size_t x : w) total += x;
    EXPECT_EQ(total, width) << width;  // uses the whole width
  }
}

TEST(TableLayout, NeverBelowTheMinimum) {
  EXPECT_EQ(FitColumns({40, 40, 3}, 10), (W{kMinColumnWidth, kMinColumnWidth, 3}));
  EXPECT_EQ(FitColumns({2, 100}, 4), (W{2, kMinColumnWidth}));
}

TEST(TableLayout, CutsCellsWithAnEllipsisOnCodePointBoundaries) {
  EXPECT_EQ(FitCell("hello", 5), "hello");
  EXPECT_EQ(FitCell("hello world", 5), "hell\xE2\x80\xA6");
  EXPECT_EQ(DisplayWidth("h\xC3\xA9llo"), 5u);
  EXPECT_EQ(FitCell("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3), "\xC3\xA9\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(DisplayWidth(FitCell("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9", 3)), 3u);
  EXPECT_EQ(FitCell("abc", 0), "");
}

TEST(TableLayout, RendersWithinTheWidth) {
  std::vector<std::vector<std::string>> rows = {{"a", std::string(200, 'x')}, {"bb", "short"}};
  std::string t = RenderTable({"name", "text"}, rows, 40);
  size_t start = 0;
  while (start < t.size()) {
    size_t end = t.find('\n', start);
    EXPECT_LE(DisplayWidth(t.substr(start, end - start)), 40u) << t.substr(start, end - start);
    start = end + 1;
  }
  EXPECT_NE(t.find("name  text"), std::string::npos) << t;
  EXPECT_NE(t.find("(2 rows)"), std::string::npos);
  EXPECT_NE(t.find("\xE2\x80\xA6"), std::string::npos);
  // no limit: the long cell in full
  EXPECT_NE(RenderTable({"name", "text"}, rows, 0).find(std::string(200, 'x')), std::string::npos);
  EXPECT_EQ(RenderTable({"n"}, {{"a\tb\nc"}}, 0), "n\n-----\na b c\n(1 row)\n");
}

TEST(TableLayout, OutputWidthFallsBackToColumnsWhenNotATerminal) {
  // ctest runs with stdout captured (not a terminal)
  if (isatty(1)) GTEST_SKIP() << "stdout is a terminal";
  setenv("COLUMNS", "123", 1);
  EXPECT_EQ(OutputWidth(), 123u);
  setenv("COLUMNS", "wide", 1);
  EXPECT_EQ(OutputWidth(), 0u);
  unsetenv("COLUMNS");
  EXPECT_EQ(OutputWidth(), 0u);
}

}  // namespace
}  // namespace omnigraph::cli
