// Golden corpus of .pg schemas under tests/compiler/schema/ (docs/language.md, "Schemas"):
//   valid/NAME.pg + valid/NAME.ir.json  -> compiles; IR equals the expected JSON; the IR survives
//                                         ToJson/FromJson and ToSource/re-parse unchanged.
//   invalid/NAME.pg (first line `// error: <code> <line>:<col>`) -> fails with that code and span.
// Set OG_REWRITE_GOLDEN=1 to (re)write missing or differing .ir.json files for review.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/json.h"
#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"

namespace omnigraph::compiler {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir(std::string_view sub) { return fs::path(OG_SOURCE_DIR) / "tests" / "compiler" / "schema" / sub; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> Files(std::string_view sub) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(CorpusDir(sub), ec)) {
    if (e.path().extension() == ".pg") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SchemaGolden, ValidCorpus) {
  auto files = Files("valid");
  EXPECT_GE(files.size(), 30u);
  bool rewrite = std::getenv("OG_REWRITE_GOLDEN") != nullptr;
  for (const auto& pg : files) {
    SCOPED_TRACE(pg.filename().string());
    std::string src = ReadFile(pg);
    auto cat = CompileSchema(src);
    ASSERT_TRUE(cat.ok()) << RenderDiagnostic(cat.status(), src, pg.filename().string());
    Json got = *ParseJson(cat->ToJson(), "ir");
    fs::path expected_path = pg;
    expected_path.replace_extension(".ir.json");
    std::string expected_text = ReadFile(expected_path);
    auto expected = ParseJson(expected_text, "expected ir");
    if (rewrite && (!expected.ok() || *expected != got)) {
      std::ofstream(expected_path, std::ios::binary) << got.dump(2) << "\n";
      continue;
    }
    ASSERT_TRUE(expected.ok()) << "missing or malformed " << expected_path;
    EXPECT_EQ(*expected, got) << "got:\n" << got.dump(2);
    // JSON round trip.
    auto back = Catalog::FromJson(cat->ToJson());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, *cat);
    // Source round trip: print, re-parse, identical IR.
    std::string printed = cat->ToSource();
    auto again = CompileSchema(printed);
    ASSERT_TRUE(again.ok()) << RenderDiagnostic(again.status(), printed) << printed;
    EXPECT_EQ(again->ToJson(), cat->ToJson()) << printed;
    EXPECT_EQ(again->ToSource(), printed);
  }
}

TEST(SchemaGolden, InvalidCorpus) {
  auto files = Files("invalid");
  EXPECT_GE(files.size(), 30u);
  for (const auto& pg : files) {
    SCOPED_TRACE(pg.filename().string());
    std::string src = ReadFile(pg);
    std::string first = src.substr(0, src.find('\n'));
    constexpr std::string_view kPrefix = "// error: ";
    ASSERT_EQ(first.rfind(kPrefix, 0), 0u) << "first line must be `// error: <code> <l>:<c>`";
    std::istringstream hdr(first.substr(kPrefix.size()));
    std::string code, pos;
    hdr >> code >> pos;
    size_t colon = pos.find(':');
    ASSERT_NE(colon, std::string::npos) << first;
    uint32_t line = static_cast<uint32_t>(std::stoul(pos.substr(0, colon)));
    uint32_t col = static_cast<uint32_t>(std::stoul(pos.substr(colon + 1)));
    auto cat = CompileSchema(src);
    ASSERT_FALSE(cat.ok()) << "compiled but expected " << code;
    const Status& s = cat.status();
    EXPECT_EQ(s.code_string(), code) << RenderDiagnostic(s, src, pg.filename().string());
    ASSERT_TRUE(s.span().has_value()) << s.ToString();
    EXPECT_EQ(s.span()->line, line) << RenderDiagnostic(s, src, pg.filename().string());
    EXPECT_EQ(s.span()->column, col) << RenderDiagnostic(s, src, pg.filename().string());
  }
}

// A deterministic stand-in for the libFuzzer target (tests/fuzz/pg_fuzz.cc) that always runs:
// mutated corpus files must compile or fail with a spanned, typed error, and whatever compiles
// must round-trip through JSON and through printed source.
TEST(SchemaGolden, MutationSmoke) {
  std::vector<std::string> seeds;
  for (const char* sub : {"valid", "invalid"}) {
    for (const auto& f : Files(sub)) seeds.push_back(ReadFile(f));
  }
  ASSERT_FALSE(seeds.empty());
  static constexpr std::string_view kTokens[] = {
      "{",    "}",    "(",          ")",     "@key",    "@card(",     "..", "->", "?",     ",",
      "\"",   "\\u{", "/*",         "enum(", "Vector(", "implements", "-",  "@",  "node ", "edge E: A -> A",
      "\xff", "0",    "99999999999"};
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto rnd = [&](uint64_t n) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return n == 0 ? 0 : state % n;
  };
  int compiled = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string src = seeds[rnd(seeds.size())];
    int edits = 1 + static_cast<int>(rnd(4));
    for (int e = 0; e < edits; ++e) {
      size_t pos = rnd(src.size() + 1);
      switch (rnd(4)) {
        case 0: src.insert(pos, kTokens[rnd(std::size(kTokens))]); break;
        case 1:
          if (pos < src.size()) src.erase(pos, 1 + rnd(8));
          break;
        case 2:
          if (pos < src.size()) src[pos] = static_cast<char>(rnd(256));
          break;
        default: src.insert(pos, seeds[rnd(seeds.size())].substr(0, rnd(40))); break;
      }
    }
    auto cat = CompileSchema(src);
    if (!cat.ok()) {
      ASSERT_TRUE(cat.status().span().has_value()) << cat.status().ToString() << "\n" << src;
      EXPECT_FALSE(RenderDiagnostic(cat.status(), src).empty());
      continue;
    }
    ++compiled;
    auto back = Catalog::FromJson(cat->ToJson());
    ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << src;
    ASSERT_EQ(*back, *cat) << src;
    std::string printed = cat->ToSource();
    auto again = CompileSchema(printed);
    ASSERT_TRUE(again.ok()) << again.status().ToString() << "\n--- input:\n" << src << "\n--- printed:\n" << printed;
    ASSERT_EQ(again->ToJson(), cat->ToJson()) << "--- input:\n" << src << "\n--- printed:\n" << printed;
  }
  EXPECT_GT(compiled, 100);  // the mutations must also exercise the success path
}

}  // namespace
}  // namespace omnigraph::compiler
