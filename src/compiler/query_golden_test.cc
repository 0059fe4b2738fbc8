// Golden corpus for the query compiler (tests/compiler/query/): every `*.gq` names its schema on
// a `// schema: <file>` line (schemas/<file>). Valid cases compile and their IR dump must equal
// `<case>.ir`; invalid ones start with `// error: <code> <line>:<col>` and must fail with exactly
// that code at that position. Every valid case also round-trips: print -> parse -> same IR.
// Set OG_REWRITE=1 (or OG_REWRITE_GOLDEN=1) to (re)write missing or stale `.ir` files for review.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/catalog_builder.h"
#include "compiler/query_parser.h"
#include "compiler/query_printer.h"
#include "compiler/type_checker.h"

namespace omnigraph::compiler {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() { return fs::path(OG_SOURCE_DIR) / "tests" / "compiler" / "query"; }

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> Cases() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(CorpusDir())) {
    if (e.path().extension() == ".gq") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The value after `// <key>: ` on any line, or "".
std::string Directive(const std::string& source, const std::string& key) {
  std::istringstream in(source);
  std::string line;
  std::string prefix = "// " + key + ": ";
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line.substr(prefix.size());
  }
  return "";
}

std::string DumpAll(const std::vector<IrQuery>& queries) {
  std::string out;
  for (const IrQuery& q : queries) out += DumpIr(q) + "\n";
  return out;
}

TEST(QueryGolden, CorpusHasEnoughCases) {
  size_t valid = 0, invalid = 0;
  for (const fs::path& p : Cases()) {
    (Directive(ReadFile(p), "error").empty() ? valid : invalid)++;
  }
  EXPECT_GE(valid, 30u);
  EXPECT_GE(invalid, 30u);
}

TEST(QueryGolden, AllCases) {
  bool rewrite = std::getenv("OG_REWRITE") != nullptr || std::getenv("OG_REWRITE_GOLDEN") != nullptr;
  std::vector<fs::path> cases = Cases();
  ASSERT_FALSE(cases.empty());
  for (const fs::path& path : cases) {
    SCOPED_TRACE(path.filename().string());
    std::string source = ReadFile(path);
    std::string schema_name = Directive(source, "schema");
    ASSERT_FALSE(schema_name.empty()) << "missing `// schema:` line";
    Result<Catalog> catalog = CompileSchema(ReadFile(CorpusDir() / "schemas" / schema_name));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    Result<std::vector<IrQuery>> ir = CompileQueries(*catalog, source);
    std::string expected_error = Directive(source, "error");
    if (!expected_error.empty()) {
      ASSERT_FALSE(ir.ok()) << "expected " << expected_error;
      const Status& st = ir.status();
      ASSERT_TRUE(st.span().has_value()) << st.ToString();
      std::string got = std::string(st.code_string()) + " " + std::to_string(st.span()->line) + ":" +
                        std::to_string(st.span()->column);
      EXPECT_EQ(got, expected_error) << st.ToString();
      continue;
    }
    ASSERT_TRUE(ir.ok()) << ir.status().ToString();
    std::string dump = DumpAll(*ir);
    fs::path ir_path = path;
    ir_path.replace_extension(".ir");
    if (rewrite && (!fs::exists(ir_path) || ReadFile(ir_path) != dump)) {
      std::ofstream(ir_path, std::ios::binary) << dump;
    }
    ASSERT_TRUE(fs::exists(ir_path)) << "missing " << ir_path << " (run with OG_REWRITE=1)";
    EXPECT_EQ(dump, ReadFile(ir_path));
    // Round trip: print the syntax tree, parse it again: same printed form and same IR.
    Result<QueryFile> ast = ParseQueryFile(source);
    ASSERT_TRUE(ast.ok());
    std::string printed = PrintQueryFile(*ast);
    Result<QueryFile> reparsed = ParseQueryFile(printed);
    ASSERT_TRUE(reparsed.ok()) << reparsed.status().ToString() << "\n" << printed;
    EXPECT_EQ(PrintQueryFile(*reparsed), printed);
    Result<std::vector<IrQuery>> ir2 = TypeCheckQueryFile(*catalog, *reparsed);
    ASSERT_TRUE(ir2.ok()) << ir2.status().ToString();
    EXPECT_EQ(DumpAll(*ir2), dump);
  }
}

}  // namespace
}  // namespace omnigraph::compiler
