// libFuzzer target for the .gq query compiler (issue 4): any input must parse and type-check or
// fail with a typed error carrying a span (never crash, hang or throw); every file that parses
// must print back to source that re-parses to the same printed form, and checks to the same IR.
// Built when OG_BUILD_FUZZ is ON (clang, -fsanitize=fuzzer); seeds: tests/compiler/query.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"
#include "compiler/query_parser.h"
#include "compiler/query_printer.h"
#include "compiler/type_checker.h"

namespace {

const omnigraph::compiler::Catalog& FuzzCatalog() {
  static const omnigraph::compiler::Catalog* catalog = [] {
    auto c = omnigraph::compiler::CompileSchema(R"(
node Person {
  name: String @key
  age: I32?
  tags: [String]?
  bio: String? @index
  born: Date?
  joined: DateTime?
  score: F64?
  status: enum(active, banned)?
  avatar: Blob?
  embedding: Vector(3)? @embed("bio")
}
node Company { name: String @key, founded: I64? }
node Doc { slug: String @key, body: String @index, embedding: Vector(4) @index }
edge Knows: Person -> Person { since: I32? }
edge WorksAt: Person -> Company { role: String? }
edge Cites: Doc -> Doc
)");
    if (!c.ok()) std::abort();
    return new omnigraph::compiler::Catalog(std::move(*c));
  }();
  return *catalog;
}

std::string DumpAll(const std::vector<omnigraph::compiler::IrQuery>& queries) {
  std::string out;
  for (const auto& q : queries) out += omnigraph::compiler::DumpIr(q);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace omnigraph::compiler;
  std::string_view src(reinterpret_cast<const char*>(data), size);
  auto file = ParseQueryFile(src);
  if (!file.ok()) {
    if (!file.status().span().has_value()) std::abort();
    (void)RenderDiagnostic(file.status(), src, "fuzz.gq");
    return 0;
  }
  std::string printed = PrintQueryFile(*file);
  auto again = ParseQueryFile(printed);
  if (!again.ok() || PrintQueryFile(*again) != printed) std::abort();
  auto ir = TypeCheckQueryFile(FuzzCatalog(), *file);
  auto ir2 = TypeCheckQueryFile(FuzzCatalog(), *again);
  if (ir.ok() != ir2.ok()) std::abort();
  if (!ir.ok()) {
    if (!ir.status().span().has_value()) std::abort();
    (void)RenderDiagnostic(ir.status(), src, "fuzz.gq");
    return 0;
  }
  if (DumpAll(*ir) != DumpAll(*ir2)) std::abort();
  return 0;
}
