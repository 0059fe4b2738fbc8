// A complete embedding example (docs/embedding.md): create a graph in memory, load two people and
// an edge in one commit, print the snapshot, the history and the export.
//   build/ci/examples/embed_example
#include <cstdio>

#include "omnigraph/omnigraph.h"

int main() {
  using namespace omnigraph;
  auto db = Database::Init("memory://example", R"(
    node Person { name: String @key, age: I32? }
    edge Knows: Person -> Person { since: I32? }
  )",
                           OpenOptions{.actor = "example"});
  if (!db.ok()) {
    std::fprintf(stderr, "init: %s\n", db.status().ToString().c_str());
    return 1;
  }
  auto loaded = (*db)->Load(R"({"type":"Person","data":{"name":"Ada","age":36}}
{"type":"Person","data":{"name":"Grace","age":45}}
{"edge":"Knows","from":"Ada","to":"Grace","data":{"since":1843}})",
                            LoadMode::kAppend);
  if (!loaded.ok()) {
    std::fprintf(stderr, "load: %s\n%s\n", loaded.status().ToString().c_str(), loaded.status().details().c_str());
    return 1;
  }
  std::printf("loaded %llu records: commit %s (version %llu)\n", static_cast<unsigned long long>(loaded->records),
              loaded->commit_id.c_str(), static_cast<unsigned long long>(loaded->version));

  // A rejected load changes nothing and says why, line by line.
  auto bad = (*db)->Load(R"({"type":"Person","data":{"name":"Ada"}})", LoadMode::kAppend);
  std::printf("rejected as expected: %s\n", bad.status().ToString().c_str());

  auto snap = (*db)->Snapshot();
  if (!snap.ok()) return 1;
  for (const auto& t : snap->types) {
    std::printf("  %-8s %s %llu\n", t.name.c_str(), t.is_edge ? "edge" : "node",
                static_cast<unsigned long long>(t.rows));
  }
  auto commits = (*db)->Commits();
  if (!commits.ok()) return 1;
  for (const auto& c : *commits) std::printf("commit %s %s\n", c.id.c_str(), c.operation.c_str());
  Status s = (*db)->Export([](std::string_view line) {
    std::printf("%.*s\n", static_cast<int>(line.size()), line.data());
    return Status::Ok();
  });
  return s.ok() && !bad.ok() ? 0 : 1;
}
