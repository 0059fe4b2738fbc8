// libFuzzer target for the .pg schema compiler (issue 4): any input must compile or fail with a
// typed error (never crash, hang or throw), and every catalog that compiles must survive the
// ToJson/FromJson and ToSource/re-compile round trips unchanged. Built when OG_BUILD_FUZZ is ON
// (clang, -fsanitize=fuzzer); seeds: tests/compiler/schema/{valid,invalid}.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "compiler/catalog_builder.h"
#include "compiler/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using omnigraph::compiler::Catalog;
  using omnigraph::compiler::CompileSchema;
  std::string_view src(reinterpret_cast<const char*>(data), size);
  auto cat = CompileSchema(src);
  if (!cat.ok()) {
    // Errors must carry a span and render without crashing.
    if (!cat.status().span().has_value()) std::abort();
    (void)omnigraph::compiler::RenderDiagnostic(cat.status(), src, "fuzz.pg");
    return 0;
  }
  auto back = Catalog::FromJson(cat->ToJson());
  if (!back.ok() || !(*back == *cat)) std::abort();
  auto again = CompileSchema(cat->ToSource());
  if (!again.ok() || !(*again == *cat)) std::abort();
  return 0;
}
