// A complete program on the public API (docs/embedding.md): create a graph, branch it, write on
// both sides, merge (first with a conflict, listed as data, then cleanly), list what the merge
// changed, and read the graph as it was at an older commit.
//   build/ci/examples/branch_merge_example
#include <cstdio>
#include <string>

#include "omnigraph/omnigraph.h"

namespace {

using omnigraph::Status;

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
  return 1;
}

void PrintRows(const omnigraph::QueryRows& rows) {
  for (const auto& row : rows.rows) {
    std::string line;
    for (const auto& v : row) line += (line.empty() ? "" : " | ") + v.ToString();
    std::printf("  %s\n", line.c_str());
  }
}

}  // namespace

int main() {
  using namespace omnigraph;
  auto opened = Database::Init("memory://branch_merge_example", R"(
    node Person { name: String @key, team: String?, age: I32? }
    edge Knows: Person -> Person
  )",
                               OpenOptions{.actor = "example"});
  if (!opened.ok()) return Fail("init", opened.status());
  Database& db = **opened;

  auto base = db.Load(R"({"type":"Person","data":{"name":"Ada","team":"core","age":36}}
{"type":"Person","data":{"name":"Grace","team":"core","age":45}}
{"edge":"Knows","from":"Ada","to":"Grace"})",
                      LoadMode::kAppend);
  if (!base.ok()) return Fail("load", base.status());
  std::printf("main: loaded %llu records, commit %s\n", static_cast<unsigned long long>(base->records),
              base->commit_id.c_str());

  // A branch, and one prepared mutation run with typed parameters on both sides.
  auto branch = db.CreateBranch("feature", "main");
  if (!branch.ok()) return Fail("branch", branch.status());
  auto set_team = db.Prepare(
      "query set_team($name: String, $team: String) {"
      "  update Person set { team: $team } where name = $name }");
  if (!set_team.ok()) return Fail("prepare", set_team.status());
  auto on_feature = db.Apply(*set_team, {{"name", Value::String("Ada")}, {"team", Value::String("search")}},
                             WriteOptions{.branch = "feature"});
  if (!on_feature.ok()) return Fail("update on feature", on_feature.status());
  auto on_main = db.Apply(*set_team, {{"name", Value::String("Ada")}, {"team", Value::String("storage")}});
  if (!on_main.ok()) return Fail("update on main", on_main.status());

  // Both sides changed Ada's team: the merge publishes nothing and lists the conflict as data.
  auto conflicted = db.Merge("feature");
  if (!conflicted.ok()) return Fail("merge", conflicted.status());
  std::printf("merge feature -> main: %s\n", std::string(MergeOutcomeName(conflicted->outcome)).c_str());
  for (const auto& c : conflicted->conflicts) {
    std::printf("  conflict %s on %s '%s' (property %s): %s\n", c.kind.c_str(), c.type_name.c_str(),
                c.entity_id.c_str(), c.property.c_str(), c.message.c_str());
  }
  if (conflicted->outcome != MergeOutcome::kConflicts || conflicted->conflicts.size() != 1 ||
      conflicted->conflicts[0].kind != "divergent_update" || conflicted->conflicts[0].property != "team") {
    return 1;
  }

  // Resolve on the branch (take main's value), add a person there, and merge again.
  auto resolve = db.Apply(*set_team, {{"name", Value::String("Ada")}, {"team", Value::String("storage")}},
                          WriteOptions{.branch = "feature"});
  if (!resolve.ok()) return Fail("resolve", resolve.status());
  auto add = db.Mutate(R"(query add() { insert Person { name: "Linus", team: "search", age: 28 } })", "", "feature");
  if (!add.ok()) return Fail("insert on feature", add.status());
  auto merged = db.Merge("feature", MergeOptions{.target = "main", .delete_source = true});
  if (!merged.ok()) return Fail("merge", merged.status());
  std::printf("merge feature -> main: %s, commit %s, branch deleted: %s\n",
              std::string(MergeOutcomeName(merged->outcome)).c_str(), merged->commit_id.c_str(),
              merged->branch_deleted ? "yes" : "no");

  // What the merge commit changed, entity by entity.
  auto changes = db.CommitChanges(merged->commit_id);
  if (!changes.ok()) return Fail("changes", changes.status());
  for (const auto& c : changes->changes) {
    std::printf("  %s %s %s\n", std::string(ChangeOpName(c.op)).c_str(), c.type_name.c_str(), c.id.c_str());
  }

  // The same prepared read, now and at the first load's commit.
  auto people = db.Prepare("query people() { match { $p: Person } return { $p.name, $p.team } order { $p.name asc } }");
  if (!people.ok()) return Fail("prepare", people.status());
  auto now = db.Execute(*people);
  if (!now.ok()) return Fail("query", now.status());
  std::printf("people now (commit %s):\n", now->commit_id.c_str());
  PrintRows(*now);
  auto then = db.Execute(*people, {}, ReadTarget::Commit(base->commit_id));
  if (!then.ok()) return Fail("query at commit", then.status());
  std::printf("people at commit %s:\n", then->commit_id.c_str());
  PrintRows(*then);

  auto history = db.Commits();
  if (!history.ok()) return Fail("commits", history.status());
  std::printf("history of main: %zu commits, newest %s (%s)\n", history->size(), history->front().id.c_str(),
              history->front().operation.c_str());
  return now->rows.size() == 3 && then->rows.size() == 2 ? 0 : 1;
}
