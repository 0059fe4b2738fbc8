// The public embedded API (include/omnigraph/omnigraph.h) as an embedder uses it: prepared queries
// with typed parameters, time travel, row cursors, branches, merge conflicts as data, structured
// load errors, history and change listing.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "common/error_codes.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph {
namespace {

constexpr const char* kSchema = R"(
  node Person { name: String @key, age: I32?, team: String? }
  edge Knows: Person -> Person
)";

constexpr const char* kPeople = R"({"type":"Person","data":{"name":"ada","age":36,"team":"core"}}
{"type":"Person","data":{"name":"bob","age":41}}
{"type":"Person","data":{"name":"cy","age":29}}
{"edge":"Knows","from":"ada","to":"bob"})";

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = Database::Init("memory://" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()),
                             kSchema, OpenOptions{.actor = "tester"});
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    auto l = db_->Load(kPeople, LoadMode::kAppend);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    first_commit_ = l->commit_id;
  }
  std::vector<std::string> Names(const ReadTarget& at) {
    auto r = db_->Query("query q() { match { $p: Person } return { $p.name } order { $p.name } }", "", at);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const auto& row : r->rows) out.push_back(row[0].string_value());
    }
    return out;
  }
  std::unique_ptr<Database> db_;
  std::string first_commit_;
};

TEST_F(DatabaseTest, PreparedQueryRunsWithTypedParameters) {
  auto q = db_->Prepare(
      "query older($min: I32) { match { $p: Person $p.age > $min } "
      "return { $p.name, $p.age } order { $p.name } }");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->name(), "older");
  EXPECT_FALSE(q->is_mutation());
  ASSERT_EQ(q->params().size(), 1u);
  EXPECT_EQ(q->params()[0].name, "min");
  EXPECT_EQ(q->params()[0].type, DataType::Scalar(TypeKind::kI32));
  EXPECT_EQ(q->columns(), (std::vector<std::string>{"p.name", "p.age"}));
  auto r = db_->Execute(*q, {{"min", Value::I32(30)}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0][0].string_value(), "ada");
  EXPECT_EQ(r->rows[1][1].int_value(), 41);
  // Another width follows the JSON rules: an I64 that fits is taken, one that does not is refused.
  auto wide = db_->Execute(*q, {{"$min", Value::I64(40)}});
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_EQ(wide->rows.size(), 1u);
  auto too_big = db_->Execute(*q, {{"min", Value::I64(int64_t{1} << 40)}});
  EXPECT_EQ(too_big.status().category(), StatusCode::kInvalidArgument);
  auto wrong = db_->Execute(*q, {{"min", Value::String("x")}});
  EXPECT_EQ(wrong.status().category(), StatusCode::kInvalidArgument);
  auto missing = db_->Execute(*q, {});
  EXPECT_EQ(missing.status().category(), StatusCode::kInvalidArgument);
  auto undeclared = db_->Execute(*q, {{"min", Value::I32(1)}, {"max", Value::I32(2)}});
  EXPECT_EQ(undeclared.status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Execute(PreparedQuery()).status().category(), StatusCode::kInvalidArgument);
}

TEST_F(DatabaseTest, OneWayInRefusesTheWrongKind) {
  auto read = db_->Prepare("query q() { match { $p: Person } return { $p.name } }");
  ASSERT_TRUE(read.ok());
  auto applied = db_->Apply(*read);
  EXPECT_EQ(applied.status().category(), StatusCode::kInvalidArgument);
  EXPECT_NE(applied.status().message().find("is a read query"), std::string::npos);
  auto mutation = db_->Prepare("query m() { insert Person { name: \"dee\" } }");
  ASSERT_TRUE(mutation.ok());
  EXPECT_TRUE(mutation->is_mutation());
  auto executed = db_->Execute(*mutation);
  EXPECT_NE(executed.status().message().find("is a mutation"), std::string::npos);
  auto two = db_->Prepare(
      "query a() { match { $p: Person } return { $p.name } }\n"
      "query b() { match { $p: Person } return { $p.age } }");
  EXPECT_EQ(two.status().category(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Prepare("query a() { match { $p: Person } return { $p.name } }", "zzz").status().category(),
            StatusCode::kNotFound);
  auto bad = db_->Prepare("query a() { match { $p: Nobody } return { $p.name } }");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().span().has_value());
}

TEST_F(DatabaseTest, ReadsAtOlderVersionsCommitsAndSnapshotIds) {
  auto snap1 = db_->Snapshot();
  ASSERT_TRUE(snap1.ok());
  auto m = db_->Mutate("query m() { insert Person { name: \"dee\" } }");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_TRUE(m->commit.has_value());
  EXPECT_EQ(m->commit->id, m->commit_id);
  EXPECT_EQ(m->changes.at("Person").inserted, 1u);
  EXPECT_EQ(Names("main").size(), 4u);
  EXPECT_EQ(Names(ReadTarget::Commit(first_commit_)).size(), 3u);
  EXPECT_EQ(Names(ReadTarget::Version("main", snap1->version)).size(), 3u);
  EXPECT_EQ(Names(ReadTarget::SnapshotId(snap1->snapshot_id)).size(), 3u);
  EXPECT_EQ(Names(ReadTarget::Any(first_commit_)).size(), 3u);
  EXPECT_EQ(Names(ReadTarget::Any("main")).size(), 4u);
  auto at = db_->Snapshot(ReadTarget::Commit(first_commit_));
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(at->commit_id, first_commit_);
  EXPECT_EQ(db_->Snapshot(ReadTarget::Version("main", 99)).status().category(), StatusCode::kNotFound);
  EXPECT_EQ(db_->Snapshot(ReadTarget::Any("nope")).status().category(), StatusCode::kNotFound);
  size_t lines = 0;
  ASSERT_TRUE(db_->Export(
                     [&](std::string_view) {
                       ++lines;
                       return Status::Ok();
                     },
                     ReadTarget::Commit(first_commit_))
                  .ok());
  EXPECT_EQ(lines, 4u);
}

TEST_F(DatabaseTest, CursorHandsOutBatchesInOrder) {
  auto q = db_->Prepare("query q() { match { $p: Person } return { $p.name } order { $p.name } }");
  ASSERT_TRUE(q.ok());
  auto c = db_->OpenCursor(*q);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->total_rows(), 3u);
  EXPECT_EQ(c->columns(), std::vector<std::string>{"p.name"});
  std::vector<std::vector<Value>> batch;
  std::vector<std::string> seen;
  size_t batches = 0;
  for (;;) {
    auto n = c->Next(&batch, 2);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    ++batches;
    for (const auto& row : batch) seen.push_back(row[0].string_value());
  }
  EXPECT_EQ(batches, 2u);
  EXPECT_EQ(seen, (std::vector<std::string>{"ada", "bob", "cy"}));
  EXPECT_EQ(*c->Next(&batch), 0u);
  EXPECT_TRUE(batch.empty());
}

TEST(DatabaseCursorTest, LargeResultsBuildValuesPerBatch) {
  auto db = Database::Init("memory://cursor_large", kSchema);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  std::string ndjson;
  for (int i = 0; i < 5000; ++i) {
    ndjson += R"({"type":"Person","data":{"name":"p)" + std::to_string(100000 + i) + R"(","age":)" +
              std::to_string(i % 90) + R"(,"team":"t)" + std::to_string(i % 7) + "\"}}\n";
  }
  ASSERT_TRUE((*db)->Load(ndjson, LoadMode::kAppend).ok());
  auto q = (*db)->Prepare(
      "query all() { match { $p: Person } return { $p.name, $p.age, $p.team, $p.name as again } "
      "order { $p.age desc, $p.name } }");
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  auto whole = (*db)->Execute(*q);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ(whole->rows.size(), 5000u);
  // Batches give exactly the rows of Execute, in order.
  auto c = (*db)->OpenCursor(*q);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->total_rows(), 5000u);
  std::vector<std::vector<Value>> batch;
  size_t at = 0;
  for (;;) {
    auto n = c->Next(&batch, 333);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    for (const auto& row : batch) {
      ASSERT_LT(at, whole->rows.size());
      ASSERT_EQ(row.size(), 4u);
      for (size_t k = 0; k < 4; ++k) EXPECT_EQ(row[k], whole->rows[at][k]) << "row " << at;
      ++at;
    }
  }
  EXPECT_EQ(at, 5000u);
  // Under a budget too small for every value at once (5,000 x 4 values), the cursor still runs.
  QueryOptions tight;
  tight.max_memory_bytes = 512 << 10;
  EXPECT_EQ((*db)->Execute(*q, {}, "main", tight).status().code_string(), "resource_limit");
  auto small = (*db)->OpenCursor(*q, {}, "main", tight);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  size_t rows = 0;
  for (;;) {
    auto n = small->Next(&batch, 100);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    if (*n == 0) break;
    rows += *n;
  }
  EXPECT_EQ(rows, 5000u);
  // A limit under an order keeps only the best rows.
  auto top = (*db)->Prepare("query top() { match { $p: Person } return { $p.name } order { $p.name desc } limit 70 }");
  ASSERT_TRUE(top.ok());
  auto tc = (*db)->OpenCursor(*top);
  ASSERT_TRUE(tc.ok());
  EXPECT_EQ(tc->total_rows(), 70u);
  ASSERT_EQ(*tc->Next(&batch, 1000), 70u);
  EXPECT_EQ(batch[0][0].string_value(), "p104999");
}

TEST_F(DatabaseTest, MergeConflictsAreDataAndPublishNothing) {
  ASSERT_TRUE(db_->CreateBranch("dev").ok());
  auto set = db_->Prepare("query s($t: String) { update Person set { team: $t } where name = \"ada\" }");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_TRUE(db_->Apply(*set, {{"t", Value::String("a")}}, WriteOptions{.branch = "dev"}).ok());
  auto on_main = db_->Apply(*set, {{"t", Value::String("b")}});
  ASSERT_TRUE(on_main.ok());
  auto r = db_->Merge("dev");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->outcome, MergeOutcome::kConflicts);
  ASSERT_EQ(r->conflicts.size(), 1u);
  EXPECT_EQ(r->conflicts[0].kind, "divergent_update");
  EXPECT_EQ(r->conflicts[0].entity_kind, EntityKind::kNode);
  EXPECT_EQ(r->conflicts[0].type_name, "Person");
  EXPECT_EQ(r->conflicts[0].entity_id, "ada");
  EXPECT_EQ(r->conflicts[0].property, "team");
  EXPECT_EQ(r->commit_id, on_main->commit_id);  // nothing published
  auto head = db_->Snapshot();
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->commit_id, on_main->commit_id);
  EXPECT_EQ(db_->Merge("nope").status().category(), StatusCode::kNotFound);
}

TEST_F(DatabaseTest, BranchesAtCommitsMergeAndHistory) {
  ASSERT_TRUE(db_->Mutate("query m() { insert Person { name: \"dee\" } }").ok());
  auto old = db_->CreateBranchAtCommit("old", first_commit_);
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  EXPECT_EQ(old->commit_id, first_commit_);
  EXPECT_EQ(Names("old").size(), 3u);
  EXPECT_EQ(db_->CreateBranchAtCommit("x", "NOTACOMMIT").status().category(), StatusCode::kNotFound);
  EXPECT_EQ(db_->CreateBranch("old").status().category(), StatusCode::kAlreadyExists);
  auto branches = db_->Branches();
  ASSERT_TRUE(branches.ok());
  EXPECT_EQ(*branches, (std::vector<std::string>{"main", "old"}));
  ASSERT_TRUE(db_->Mutate("query m() { insert Person { name: \"eve\" } }", "", "old").ok());
  auto merged = db_->Merge("old", MergeOptions{.target = "main", .delete_source = true});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->outcome, MergeOutcome::kMerged);
  EXPECT_TRUE(merged->branch_deleted);
  EXPECT_EQ(merged->summary.at("Person").inserted, 1u);
  EXPECT_EQ(Names("main").size(), 5u);
  auto commits = db_->Commits();
  ASSERT_TRUE(commits.ok());
  ASSERT_GE(commits->size(), 4u);
  EXPECT_EQ(commits->front().id, merged->commit_id);
  EXPECT_EQ(commits->front().parents.size(), 2u);
  EXPECT_TRUE(commits->front().version.has_value());
  auto shown = db_->GetCommit(merged->commit_id);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->operation, "merge");
  EXPECT_EQ(shown->actor, std::optional<std::string>("tester"));
  EXPECT_EQ(shown->tables.size(), 2u);
}

TEST_F(DatabaseTest, ChangesFeedAndDiff) {
  auto m = db_->Mutate("query m() { update Person set { age: 37 } where name = \"ada\" }");
  ASSERT_TRUE(m.ok());
  auto block = db_->CommitChanges(m->commit_id);
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  ASSERT_EQ(block->changes.size(), 1u);
  const EntityChange& c = block->changes[0];
  EXPECT_EQ(c.op, ChangeOp::kUpdate);
  ASSERT_TRUE(c.before && c.after);
  EXPECT_EQ(c.after->properties[0].first, "name");
  EXPECT_EQ(c.after->properties[1].first, "age");
  EXPECT_EQ(c.before->properties[1].second.int_value(), 36);
  EXPECT_EQ(c.after->properties[1].second.int_value(), 37);
  EXPECT_EQ(db_->CommitChanges(m->commit_id, ChangeFilter{.ops = {ChangeOp::kInsert}})->changes.size(), 0u);
  ChangePollRequest poll;
  poll.start = "beginning";
  auto page = db_->PollChanges(poll);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->caught_up);
  ASSERT_GE(page->blocks.size(), 2u);
  EXPECT_EQ(page->blocks.back().commit.id, m->commit_id);
  poll.cursor = page->cursor;
  auto again = db_->PollChanges(ChangePollRequest{.cursor = page->cursor});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->blocks.empty());
  EXPECT_EQ(db_->PollChanges(ChangePollRequest{.start = "beginning", .max_commits = 0}).status().category(),
            StatusCode::kInvalidArgument);
  auto d = db_->Diff(ReadTarget::Commit(first_commit_), "main");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->from_commit_id, first_commit_);
  EXPECT_EQ(d->to_commit_id, m->commit_id);
  ASSERT_EQ(d->changes.size(), 1u);
  EXPECT_EQ(d->changes[0].id, "ada");
}

TEST_F(DatabaseTest, RejectedLoadListsEveryErrorAsData) {
  auto r = db_->Load(R"({"type":"Person","data":{"name":"zed","age":"old"}}
{"type":"Nobody","data":{}}
{"type":"Person","data":{"name":"ok"}})",
                     LoadMode::kAppend);
  ASSERT_FALSE(r.ok());
  const auto& errors = r.status().errors();
  ASSERT_EQ(errors.size(), 2u) << r.status().details();
  EXPECT_EQ(errors[0].line, std::optional<uint64_t>(1));
  EXPECT_EQ(errors[1].line, std::optional<uint64_t>(2));
  EXPECT_FALSE(errors[0].statement.has_value());
  EXPECT_FALSE(r.status().errors_truncated());
  EXPECT_NE(r.status().details().find("\"errors\""), std::string::npos);
  EXPECT_EQ(Names("main").size(), 3u);  // nothing was written
}

TEST_F(DatabaseTest, LoadCreatesABranchInItsCommitPoint) {
  LoadOptions o;
  o.mode = LoadMode::kMerge;
  o.branch = "feature";
  o.create_branch_from = "main";
  auto r = db_->Load(R"({"type":"Person","data":{"name":"fay"}})", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->branch_created);
  EXPECT_EQ(r->types.at("Person").changes.inserted, 1u);
  EXPECT_EQ(Names("feature").size(), 4u);
  EXPECT_EQ(Names("main").size(), 3u);
}

TEST(DatabaseInitTest, FailedInitRemovesTheFolderItCreated) {
  const auto root = std::filesystem::temp_directory_path() / ("og_db_init_" + std::to_string(::getpid()));
  std::filesystem::remove_all(root);
  auto bad = Database::Init((root / "a" / "graph").string(), "node Broken { name: Nope }");
  ASSERT_FALSE(bad.ok());
  EXPECT_FALSE(std::filesystem::exists(root));
  auto good = Database::Init((root / "graph").string(), kSchema);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ((*good)->uri().rfind("file://", 0), 0u);
  std::filesystem::remove_all(root);
}

// OpenOptions::authorize_write sees every write with its action, branches and actor (the
// thread's ScopedActor first) and can refuse it, changing nothing.
TEST(DatabaseWriteGuardTest, EveryWriteIsAskedAndARefusalChangesNothing) {
  std::vector<std::string> seen;
  std::mutex mu;
  OpenOptions o;
  o.actor = "handle-actor";
  o.authorize_write = [&](const WriteIntent& w) -> Status {
    std::lock_guard<std::mutex> lock(mu);
    seen.push_back(std::string(w.action) + " " + w.branch.value_or("-") + " " + w.target_branch.value_or("-") + " " +
                   w.actor.value_or("-"));
    if (w.action == "branch_delete" || w.branch == std::optional<std::string>("frozen")) {
      return PermissionDeniedError("refused by the test");
    }
    return Status::Ok();
  };
  auto db = Database::Init("memory://write-guard", kSchema, o);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Load(kPeople, LoadMode::kAppend).ok());
  {
    ScopedActor as("alice");
    ASSERT_TRUE((*db)->CreateBranch("feature", "main").ok());
    ASSERT_TRUE((*db)->Mutate("query m() { insert Person { name: \"dee\" } }", "", "feature").ok());
  }
  EXPECT_EQ((*db)->DeleteBranch("feature").status().code_string(), "permission_denied");
  auto branches = (*db)->Branches();
  ASSERT_TRUE(branches.ok());
  EXPECT_EQ(*branches, (std::vector<std::string>{"feature", "main"}));  // the refused delete did nothing
  ASSERT_TRUE((*db)->CreateBranch("frozen", "main").ok());
  auto refused = (*db)->Mutate("query m() { insert Person { name: \"eve\" } }", "", "frozen");
  EXPECT_EQ(refused.status().code_string(), "permission_denied");
  auto merged = (*db)->Merge("feature", MergeOptions{.target = "main", .delete_source = true});
  EXPECT_EQ(merged.status().code_string(), "permission_denied");  // the source delete is refused up front
  auto people = (*db)->Query("query c() { match { $p: Person } return { count($p) as n } }");
  ASSERT_TRUE(people.ok());
  EXPECT_EQ(people->rows[0][0].int_value(), 3);  // main unchanged by the refused merge
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_EQ(seen[0], "change main - handle-actor");
  EXPECT_EQ(seen[1], "branch_create main feature alice");
  EXPECT_EQ(seen[2], "change feature - alice");
  EXPECT_EQ(seen[3], "branch_delete - feature handle-actor");
}

}  // namespace
}  // namespace omnigraph
