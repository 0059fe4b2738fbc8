// Parse + type check of a generated 2,000-line .gq file (issue 4 target: < 20 ms).
//   build/ci/bench/compiler_bench_query
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compiler/catalog_builder.h"
#include "compiler/type_checker.h"

int main() {
  using namespace omnigraph::compiler;
  const char* schema = R"(
node Person { name: String @key, age: I32?, email: String?, tags: [String]? }
node Team { slug: String @key, title: String }
edge MemberOf: Person -> Team { since: I32? }
edge Knows: Person -> Person
)";
  auto catalog = CompileSchema(schema);
  if (!catalog.ok()) return 1;
  std::string src;
  int lines = 0;
  for (int i = 0; lines < 2000; ++i) {
    src += "query q" + std::to_string(i) +
           "($name: String, $min: I32) {\n"
           "  match {\n"
           "    $p: Person { name: $name }\n"
           "    $p knows{1,3} $f\n"
           "    $f memberOf $t\n"
           "    $f.age >= $min\n"
           "    not { $f knows $p }\n"
           "  }\n"
           "  return { $t.title, count($f) as n }\n"
           "  order { n desc }\n"
           "  limit 10\n"
           "}\n";
    lines += 12;
  }
  std::vector<double> ms;
  size_t count = 0;
  for (int r = 0; r < 7; ++r) {
    auto t = std::chrono::steady_clock::now();
    auto q = CompileQueries(*catalog, src);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    if (!q.ok()) {
      std::fprintf(stderr, "%s\n", q.status().ToString().c_str());
      return 1;
    }
    count = q->size();
  }
  std::sort(ms.begin(), ms.end());
  std::printf("compile %d-line query file (%zu queries): median %.2f ms (min %.2f, max %.2f, 7 runs)\n", lines, count,
              ms[3], ms.front(), ms.back());
  return 0;
}
