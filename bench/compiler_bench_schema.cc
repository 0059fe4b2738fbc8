// Schema compiler benchmark (issue 4 "Bench"): lex + parse + build a 500-type schema; target
// under 20 ms. Also measures JSON serialization, FromJson and ToSource of the same catalog.
#include <benchmark/benchmark.h>

#include <string>

#include "compiler/catalog_builder.h"

namespace {

// 400 node types with 8 properties each (keys, enums, vectors, constraints) + 100 edge types.
std::string BigSchema() {
  std::string s = "interface Entity { slug: String @key, created: DateTime }\n";
  for (int i = 0; i < 400; ++i) {
    std::string n = std::to_string(i);
    s += "node T" + n + " @description(\"type " + n +
         "\") implements Entity {\n"
         "  name: String @index\n  age: I32?\n  score: F64 @index\n"
         "  kind: enum(a, b, c, d-" +
         n +
         ")\n  tags: [String]\n  body: String?\n"
         "  emb: Vector(64)? @embed(\"body\")\n"
         "  @unique(name, age)\n  @range(age, 0..150)\n  @check(name, \"[A-Za-z0-9 ]+\")\n}\n";
  }
  for (int i = 0; i < 100; ++i) {
    std::string n = std::to_string(i);
    s += "edge E" + n + ": T" + n + " -> T" + std::to_string(i + 1) +
         " @card(0..10) { since: Date?, weight: F32 @index, @unique(src, dst) }\n";
  }
  return s;
}

void BM_CompileSchema500Types(benchmark::State& state) {
  std::string src = BigSchema();
  for (auto _ : state) {
    auto cat = omnigraph::compiler::CompileSchema(src);
    if (!cat.ok()) state.SkipWithError(cat.status().ToString().c_str());
    benchmark::DoNotOptimize(cat);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * src.size()));
}
BENCHMARK(BM_CompileSchema500Types)->Unit(benchmark::kMillisecond);

void BM_CatalogJsonRoundTrip(benchmark::State& state) {
  auto cat = omnigraph::compiler::CompileSchema(BigSchema());
  if (!cat.ok()) {
    state.SkipWithError(cat.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto back = omnigraph::compiler::Catalog::FromJson(cat->ToJson());
    benchmark::DoNotOptimize(back);
  }
}
BENCHMARK(BM_CatalogJsonRoundTrip)->Unit(benchmark::kMillisecond);

void BM_CatalogToSource(benchmark::State& state) {
  auto cat = omnigraph::compiler::CompileSchema(BigSchema());
  if (!cat.ok()) {
    state.SkipWithError(cat.status().ToString().c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(cat->ToSource());
}
BENCHMARK(BM_CatalogToSource)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
