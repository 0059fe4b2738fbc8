// The ledger commands of the control plane (control.h) on cluster folders written by each test:
// import/plan/apply round trips, edit cycles (queries, policies, bindings, schemas, graphs added
// and removed behind approvals), unsupported migrations, refresh of out-of-band changes, the
// operation lock, a corrupt ledger, and an S3 storage root. Crashes and concurrency are in
// control_crash_test.cc.
#include "cluster/control.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/ledger.h"
#include "common/hash.h"
#include "common/ulid.h"
#include "omnigraph/omnigraph.h"
#include "s3_server/s3_test_env.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;
using Map = std::map<std::string, std::string>;
using Codes = std::vector<std::string>;

constexpr const char* kPeople =
    "node Person {\n  name: String @key\n  age: I32?\n  title: String?\n}\nnode Company {\n  name: String @key\n}\n"
    "edge WorksAt: Person -> Company\n";
// + a nullable property: a supported migration.
constexpr const char* kPeopleEmail =
    "node Person {\n  name: String @key\n  age: I32?\n  title: String?\n  email: String?\n}\n"
    "node Company {\n  name: String @key\n}\nedge WorksAt: Person -> Company\n";
// title: String? -> I32?: a type change, unsupported.
constexpr const char* kPeopleTitleI32 =
    "node Person {\n  name: String @key\n  age: I32?\n  title: I32?\n}\nnode Company {\n  name: String @key\n}\n"
    "edge WorksAt: Person -> Company\n";
// Type metadata only: what an out-of-band `schema apply` does in the refresh test.
constexpr const char* kPeopleDescribed =
    "node Person {\n  name: String @key\n  age: I32?\n  title: String?\n}\nnode Company @description(\"oob\") {\n"
    "  name: String @key\n}\nedge WorksAt: Person -> Company\n";
constexpr const char* kDocs = "node Doc {\n  slug: String @key\n}\n";
constexpr const char* kFindPerson =
    "query find_person($name: String) {\n  match { $p: Person { name: $name } }\n  return { $p.name, $p.age }\n}\n";
constexpr const char* kFindPersonV2 =
    "query find_person($name: String) {\n  match { $p: Person { name: $name } }\n  return { $p.name, $p.title }\n}\n";
constexpr const char* kEmptyPolicy = "version: 1\nrules: []\n";
// tests/cluster/company-brain/base.policy.yaml
constexpr const char* kEngineersPolicy =
    "version: 1\ngroups:\n  engineers: [act-alice, act-bob]\n  admins: [act-andrew]\nprotected_branches: [main]\n"
    "rules:\n  - id: engineers-read\n    allow:\n      actors: { group: engineers }\n      actions: [read, export]\n"
    "      branch_scope: any\n  - id: engineers-write-unprotected\n    allow:\n      actors: { group: engineers }\n"
    "      actions: [change]\n      branch_scope: unprotected\n  - id: admins-merge-into-main\n    allow:\n"
    "      actors: { group: admins }\n      actions: [branch_merge]\n      target_branch_scope: protected\n";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The codes of the diagnostics of `severity`, in order.
Codes CodesOf(const OrderedJson& j, const std::string& severity = "error") {
  Codes out;
  for (const auto& d : j.at("diagnostics")) {
    if (d.at("severity") == severity) out.push_back(d.at("code").get<std::string>());
  }
  return out;
}

bool HasDiagnostic(const OrderedJson& j, const std::string& code, const std::string& path = "") {
  for (const auto& d : j.at("diagnostics")) {
    if (d.at("code") == code && (path.empty() || d.at("path") == path)) return true;
  }
  return false;
}

// resource -> operation of every change.
Map Ops(const OrderedJson& j) {
  Map m;
  for (const auto& c : j.at("changes")) m[c.at("resource").get<std::string>()] = c.at("operation").get<std::string>();
  return m;
}

// resource -> disposition, with ":<reason>" when there is one.
Map Dispositions(const OrderedJson& j) {
  Map m;
  for (const auto& c : j.at("changes")) {
    std::string d = c.value("disposition", std::string());
    if (c.contains("reason")) d += ":" + c.at("reason").get<std::string>();
    m[c.at("resource").get<std::string>()] = d;
  }
  return m;
}

// The change of `resource`, or null.
OrderedJson FindChange(const OrderedJson& j, const std::string& resource) {
  for (const auto& c : j.at("changes")) {
    if (c.at("resource") == resource) return c;
  }
  return OrderedJson();
}

uint64_t Revision(const OrderedJson& j) { return j.at("state_observations").at("state_revision").get<uint64_t>(); }

std::string StatusOf(const OrderedJson& j, const std::string& resource) {
  const auto& s = j.at("resource_statuses");
  return s.contains(resource) ? s.at(resource).at("status").get<std::string>() : "<none>";
}

// The schema source of the graph at `uri`, or "<error>".
std::string LiveSchemaAt(const std::string& uri) {
  OpenOptions o;
  o.read_only = true;
  auto db = Database::Open(uri, o);
  if (!db.ok()) return "<" + db.status().ToString() + ">";
  auto source = (*db)->SchemaSource();
  return source.ok() ? *source : "<" + source.status().ToString() + ">";
}

class ControlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("og-control-" + NewUlidString())).string();
    fs::create_directories(dir_);
    Write("people.pg", kPeople);
    Write("queries/find_person.gq", kFindPerson);
    Write("base.policy.yaml", kEmptyPolicy);
    WriteConfig();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(Path(rel).parent_path());
    std::ofstream(Path(rel), std::ios::binary | std::ios::trunc) << text;
  }
  // cluster.yaml: graph `knowledge` (people.pg, queries/), a schema-only graph per `extra`
  // (<id>.pg, written with kDocs when absent), policy `base` bound to `binding`.
  void WriteConfig(const std::vector<std::string>& extra = {}, const std::string& binding = "[knowledge]",
                   const std::string& storage = "") {
    std::string y = "version: 1\nmetadata:\n  name: test\n";
    if (!storage.empty()) y += "storage: " + storage + "\n";
    y += "graphs:\n  knowledge:\n    schema: people.pg\n    queries: queries/\n";
    for (const auto& g : extra) {
      if (!fs::exists(Path(g + ".pg"))) Write(g + ".pg", kDocs);
      y += "  " + g + ":\n    schema: " + g + ".pg\n";
    }
    y += "policies:\n  base:\n    file: base.policy.yaml\n    applies_to: " + binding + "\n";
    Write("cluster.yaml", y);
  }

  fs::path Path(const std::string& rel) const { return fs::path(dir_) / rel; }
  std::string Uri(const std::string& graph) const { return dir_ + "/graphs/" + graph + ".omni"; }
  std::string LiveSchema(const std::string& graph) const { return LiveSchemaAt(Uri(graph)); }
  // Where the catalog keeps `content` of `address`.
  fs::path CatalogPath(const std::string& address, const std::string& content) const {
    return Path(Ledger::PayloadKey(address, Sha256Hex(content)));
  }
  CommandResult Apply() { return RunApply(dir_, std::string("tester")); }

  // import + apply of the folder as it is; the apply's JSON.
  OrderedJson Bootstrap() {
    CommandResult imported = RunImport(dir_);
    EXPECT_TRUE(imported.ok) << imported.json.dump(2);
    CommandResult applied = Apply();
    EXPECT_TRUE(applied.ok) << applied.json.dump(2);
    EXPECT_EQ(applied.json.at("converged"), true) << applied.json.dump(2);
    return applied.json;
  }

  Ledger OpenLedger() {
    auto root = ResolveStorageRoot(dir_, std::nullopt);
    EXPECT_TRUE(root.ok()) << root.status().ToString();
    auto ledger = Ledger::Open(*root, /*create=*/true);
    EXPECT_TRUE(ledger.ok()) << ledger.status().ToString();
    return std::move(ledger).value();
  }

  std::string dir_;
};

TEST_F(ControlTest, ImportPlanApplyConvergesAndReapplyIsANoOp) {
  CommandResult imported = RunImport(dir_);
  ASSERT_TRUE(imported.ok) << imported.json.dump(2);
  EXPECT_EQ(imported.json.at("operation"), "import");
  EXPECT_EQ(Revision(imported.json), 1u);
  EXPECT_EQ(imported.json.at("observations").at("graph.knowledge").at("exists"), false);
  EXPECT_EQ(StatusOf(imported.json, "graph.knowledge"), "drifted");
  EXPECT_TRUE(fs::exists(Path(StateKey(1))));

  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Ops(plan.json), (Map{{"graph.knowledge", "create"},
                                 {"policy.base", "create"},
                                 {"query.knowledge.find_person", "create"},
                                 {"schema.knowledge", "create"}}));
  for (const auto& [resource, d] : Dispositions(plan.json)) EXPECT_EQ(d, "applied") << resource;
  EXPECT_EQ(plan.json.at("resource_digests").at("schema.knowledge"), Sha256Hex(kPeople));
  EXPECT_FALSE(fs::exists(Uri("knowledge"))) << "plan must not write";

  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("actor"), "tester");
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(apply.json.at("state_written"), true);
  EXPECT_EQ(apply.json.at("applied_count"), 4);
  EXPECT_EQ(apply.json.at("deferred_count"), 0);
  EXPECT_EQ(Revision(apply.json), 2u);
  EXPECT_EQ(apply.json.at("state_observations").at("applied_config_digest"),
            plan.json.at("desired_revision").at("config_digest"));
  for (const char* r : {"graph.knowledge", "schema.knowledge", "query.knowledge.find_person", "policy.base"}) {
    EXPECT_EQ(StatusOf(apply.json, r), "applied") << r;
  }
  EXPECT_TRUE(fs::is_directory(Uri("knowledge")));
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
  EXPECT_EQ(ReadFile(CatalogPath("query.knowledge.find_person", kFindPerson)), kFindPerson);
  EXPECT_EQ(ReadFile(CatalogPath("policy.base", kEmptyPolicy)), kEmptyPolicy);
  EXPECT_FALSE(fs::exists(Path(Ledger::kLockKey))) << "the lock must be released";

  CommandResult again = Apply();
  ASSERT_TRUE(again.ok) << again.json.dump(2);
  EXPECT_TRUE(again.json.at("changes").empty());
  EXPECT_EQ(again.json.at("state_written"), false);
  EXPECT_EQ(again.json.at("converged"), true);
  EXPECT_EQ(again.json.at("applied_count"), 0);
  EXPECT_EQ(Revision(again.json), 2u);
  EXPECT_FALSE(fs::exists(Path(StateKey(3))));

  CommandResult status = RunStatus(dir_);
  ASSERT_TRUE(status.ok) << status.json.dump(2);
  EXPECT_TRUE(status.json.at("diagnostics").empty()) << status.json.dump(2);
  EXPECT_EQ(Revision(status.json), 2u);
  EXPECT_EQ(status.json.at("state_observations").at("locked"), false);
  // The recorded digests are the desired ones, the composite graph digest included.
  EXPECT_EQ(status.json.at("resource_digests"), plan.json.at("resource_digests"));
}

TEST_F(ControlTest, ApplyNeedsStateAndImportOnlyBootstraps) {
  CommandResult apply = Apply();
  EXPECT_FALSE(apply.ok);
  EXPECT_EQ(CodesOf(apply.json), Codes{"state_missing"}) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("state_written"), false);
  const fs::path state = Path(Ledger::kStatePrefix);
  EXPECT_TRUE(!fs::exists(state) || fs::is_empty(state));
  EXPECT_FALSE(fs::exists(Uri("knowledge")));
  EXPECT_FALSE(fs::exists(Path(Ledger::kLockKey)));
  CommandResult plan = RunPlan(dir_);  // without state: everything is a create
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(plan.json.at("state_observations").at("state_found"), false);
  EXPECT_EQ(Ops(plan.json).size(), 4u);

  ASSERT_TRUE(RunImport(dir_).ok);
  CommandResult twice = RunImport(dir_);
  EXPECT_FALSE(twice.ok);
  EXPECT_EQ(CodesOf(twice.json), Codes{"state_already_exists"}) << twice.json.dump(2);
  EXPECT_EQ(Revision(twice.json), 1u);
  EXPECT_FALSE(fs::exists(Path(StateKey(2))));
}

TEST_F(ControlTest, QueryEditIsAppliedAndTheOldCatalogObjectIsKept) {
  Bootstrap();
  Write("queries/find_person.gq", kFindPersonV2);
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Dispositions(plan.json), (Map{{"graph.knowledge", "derived"}, {"query.knowledge.find_person", "applied"}}));
  OrderedJson change = FindChange(plan.json, "query.knowledge.find_person");
  ASSERT_FALSE(change.is_null());
  EXPECT_EQ(change.at("operation"), "update");
  EXPECT_EQ(change.at("before_digest"), Sha256Hex(kFindPerson));
  EXPECT_EQ(change.at("after_digest"), Sha256Hex(kFindPersonV2));

  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(apply.json.at("applied_count"), 1);
  EXPECT_EQ(apply.json.at("state_written"), true);
  EXPECT_EQ(ReadFile(CatalogPath("query.knowledge.find_person", kFindPersonV2)), kFindPersonV2);
  EXPECT_EQ(ReadFile(CatalogPath("query.knowledge.find_person", kFindPerson)), kFindPerson);
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty());
}

TEST_F(ControlTest, PolicyFileEditIsApplied) {
  Bootstrap();
  Write("base.policy.yaml", kEngineersPolicy);
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Dispositions(plan.json), (Map{{"policy.base", "applied"}}));
  EXPECT_EQ(FindChange(plan.json, "policy.base").at("after_digest"), Sha256Hex(kEngineersPolicy));
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(apply.json.at("applied_count"), 1);
  EXPECT_EQ(ReadFile(CatalogPath("policy.base", kEngineersPolicy)), kEngineersPolicy);
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty());
}

TEST_F(ControlTest, PolicyBindingChangeIsMetadataOnly) {
  Bootstrap();
  WriteConfig({}, "[cluster]");
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  ASSERT_EQ(plan.json.at("changes").size(), 1u) << plan.json.dump(2);
  const OrderedJson& c = plan.json.at("changes")[0];
  EXPECT_EQ(c.at("resource"), "policy.base");
  EXPECT_EQ(c.at("operation"), "update");
  EXPECT_EQ(c.at("binding_change"), true);
  EXPECT_EQ(c.at("metadata_change"), "policy_bindings");
  EXPECT_EQ(c.at("before_digest"), c.at("after_digest"));

  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(apply.json.at("applied_count"), 1);
  Ledger ledger = OpenLedger();
  auto read = ledger.ReadState();
  ASSERT_TRUE(read.ok() && read->state) << read.status().ToString();
  EXPECT_EQ(read->state->resources.at("policy.base").applies_to, std::vector<std::string>{"cluster"});
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty());
}

TEST_F(ControlTest, AddedNullablePropertyMigratesTheLiveGraph) {
  Bootstrap();
  Write("people.pg", kPeopleEmail);
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Dispositions(plan.json), (Map{{"graph.knowledge", "derived"}, {"schema.knowledge", "applied"}}));
  OrderedJson schema = FindChange(plan.json, "schema.knowledge");
  ASSERT_TRUE(schema.contains("migration")) << plan.json.dump(2);
  EXPECT_EQ(schema.at("migration").at("supported"), true);
  bool add_property = false;
  for (const auto& step : schema.at("migration").at("steps")) {
    add_property |= step.at("kind") == "add_property" && step.at("type_name") == "Person" &&
                    step.value("property", std::string()) == "email";
  }
  EXPECT_TRUE(add_property) << schema.dump(2);
  EXPECT_EQ(LiveSchema("knowledge"), kPeople) << "plan must not migrate";

  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(LiveSchema("knowledge"), kPeopleEmail);
  CommandResult refresh = RunRefresh(dir_);
  ASSERT_TRUE(refresh.ok) << refresh.json.dump(2);
  EXPECT_EQ(StatusOf(refresh.json, "schema.knowledge"), "applied");
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty());
}

TEST_F(ControlTest, AddedGraphIsCreated) {
  Bootstrap();
  WriteConfig({"extra"});
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Ops(plan.json), (Map{{"graph.extra", "create"}, {"schema.extra", "create"}}));
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(apply.json.at("applied_count"), 2);
  EXPECT_EQ(LiveSchema("extra"), kDocs);
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
}

TEST_F(ControlTest, RemovedGraphIsDeletedOnlyWithAnApprovalUsedOnce) {
  WriteConfig({"extra"});
  Bootstrap();
  WriteConfig({});
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(Dispositions(plan.json),
            (Map{{"graph.extra", "blocked:approval_required"}, {"schema.extra", "blocked:approval_required"}}));
  ASSERT_EQ(plan.json.at("approvals_required").size(), 1u);
  EXPECT_EQ(plan.json.at("approvals_required")[0].at("resource"), "graph.extra");
  EXPECT_EQ(plan.json.at("approvals_required")[0].at("satisfied"), false);

  CommandResult blocked = Apply();
  ASSERT_TRUE(blocked.ok) << blocked.json.dump(2);
  EXPECT_EQ(blocked.json.at("converged"), false);
  EXPECT_EQ(blocked.json.at("applied_count"), 0);
  EXPECT_EQ(blocked.json.at("deferred_count"), 2);
  EXPECT_EQ(FindChange(blocked.json, "graph.extra").at("reason"), "approval_required");
  EXPECT_TRUE(HasDiagnostic(blocked.json, "apply_dependency_blocked", "graph.extra"));
  EXPECT_EQ(LiveSchema("extra"), kDocs);

  CommandResult approve = RunApprove(dir_, "graph.extra", "alice");
  ASSERT_TRUE(approve.ok) << approve.json.dump(2);
  EXPECT_EQ(approve.json.at("resource"), "graph.extra");
  EXPECT_EQ(approve.json.at("operation"), "delete");
  EXPECT_EQ(approve.json.at("approved_by"), "alice");
  const std::string id = approve.json.at("approval_id").get<std::string>();
  const fs::path artifact = Path(std::string(Ledger::kApprovalsPrefix) + id + ".json");
  ASSERT_TRUE(fs::exists(artifact));
  EXPECT_TRUE(Json::parse(ReadFile(artifact)).at("consumed_at").is_null());
  EXPECT_EQ(RunPlan(dir_).json.at("approvals_required")[0].at("satisfied"), true);

  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(Dispositions(apply.json), (Map{{"graph.extra", "applied"}, {"schema.extra", "applied"}}));
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_FALSE(fs::exists(Uri("extra")));
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
  EXPECT_TRUE(Json::parse(ReadFile(artifact)).at("consumed_at").is_string());
  CommandResult status = RunStatus(dir_);
  ASSERT_TRUE(status.ok) << status.json.dump(2);
  EXPECT_EQ(status.json.at("observations").at("graph.extra").at("kind"), "tombstone");
  EXPECT_EQ(status.json.at("observations").at("graph.extra").at("approval_id"), id);
  EXPECT_FALSE(status.json.at("resource_digests").contains("graph.extra"));

  CommandResult again = Apply();
  ASSERT_TRUE(again.ok) << again.json.dump(2);
  EXPECT_TRUE(again.json.at("changes").empty());
  EXPECT_EQ(again.json.at("state_written"), false);

  // The same delete again (same config digest, same graph digest): the consumed approval does
  // not authorize it a second time.
  WriteConfig({"extra"});
  ASSERT_EQ(Apply().json.at("converged"), true);
  WriteConfig({});
  CommandResult replay = Apply();
  ASSERT_TRUE(replay.ok) << replay.json.dump(2);
  EXPECT_EQ(FindChange(replay.json, "graph.extra").at("disposition"), "blocked") << replay.json.dump(2);
  EXPECT_EQ(LiveSchema("extra"), kDocs);
}

TEST_F(ControlTest, ApprovalMadeBeforeAnotherEditIsStale) {
  WriteConfig({"extra"});
  Bootstrap();
  WriteConfig({});
  CommandResult approve = RunApprove(dir_, "graph.extra", "alice");
  ASSERT_TRUE(approve.ok) << approve.json.dump(2);
  Write("queries/find_person.gq", kFindPersonV2);  // the config digest moves

  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_TRUE(HasDiagnostic(plan.json, "approval_stale", "graph.extra")) << plan.json.dump(2);
  EXPECT_EQ(plan.json.at("approvals_required")[0].at("satisfied"), false);
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(Dispositions(apply.json), (Map{{"graph.extra", "blocked:approval_required"},
                                           {"graph.knowledge", "derived"},
                                           {"query.knowledge.find_person", "applied"},
                                           {"schema.extra", "blocked:approval_required"}}));
  EXPECT_EQ(apply.json.at("converged"), false);
  EXPECT_EQ(LiveSchema("extra"), kDocs);
  const fs::path artifact =
      Path(std::string(Ledger::kApprovalsPrefix) + approve.json.at("approval_id").get<std::string>() + ".json");
  EXPECT_TRUE(Json::parse(ReadFile(artifact)).at("consumed_at").is_null());
}

TEST_F(ControlTest, ApproveWithoutAPendingDeleteIsRefused) {
  Bootstrap();
  for (const char* resource : {"graph.knowledge", "policy.base", "graph.nope"}) {
    CommandResult approve = RunApprove(dir_, resource, "alice");
    EXPECT_FALSE(approve.ok) << resource;
    EXPECT_EQ(CodesOf(approve.json), Codes{"approval_not_required"}) << approve.json.dump(2);
  }
  const fs::path approvals = Path(Ledger::kApprovalsPrefix);
  EXPECT_TRUE(!fs::exists(approvals) || fs::is_empty(approvals));
}

TEST_F(ControlTest, UnsupportedSchemaChangeBlocksItsDependentsUntilFixed) {
  Bootstrap();
  {
    auto db = Database::Open(Uri("knowledge"));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto load = (*db)->Load(R"({"type":"Person","data":{"name":"Ada","age":36,"title":"Dr"}})", LoadMode::kAppend);
    ASSERT_TRUE(load.ok()) << load.status().ToString();
  }
  Write("people.pg", kPeopleTitleI32);
  Write("queries/find_person.gq", kFindPersonV2);
  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  EXPECT_EQ(FindChange(plan.json, "schema.knowledge").at("migration").at("supported"), false) << plan.json.dump(2);

  CommandResult apply = Apply();
  EXPECT_FALSE(apply.ok);
  EXPECT_EQ(CodesOf(apply.json), Codes{"schema_apply_failed"}) << apply.json.dump(2);
  EXPECT_EQ(Dispositions(apply.json), (Map{{"graph.knowledge", "blocked:dependency_not_applied"},
                                           {"query.knowledge.find_person", "blocked:dependency_not_applied"},
                                           {"schema.knowledge", "blocked:schema_apply_failed"}}));
  EXPECT_EQ(apply.json.at("converged"), false);
  EXPECT_EQ(apply.json.at("applied_count"), 0);
  EXPECT_EQ(apply.json.at("deferred_count"), 3);
  EXPECT_EQ(StatusOf(apply.json, "schema.knowledge"), "blocked");
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
  EXPECT_FALSE(fs::exists(CatalogPath("query.knowledge.find_person", kFindPersonV2)));

  Write("people.pg", kPeople);  // the fix: the type stays; the query edit goes through
  CommandResult fixed = Apply();
  ASSERT_TRUE(fixed.ok) << fixed.json.dump(2);
  EXPECT_EQ(fixed.json.at("converged"), true);
  EXPECT_EQ(Dispositions(fixed.json),
            (Map{{"graph.knowledge", "derived"}, {"query.knowledge.find_person", "applied"}}));
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
  EXPECT_TRUE(fs::exists(CatalogPath("query.knowledge.find_person", kFindPersonV2)));
  // A converged state reports no resource as still blocked.
  const OrderedJson& statuses = fixed.json.at("resource_statuses");
  for (auto it = statuses.begin(); it != statuses.end(); ++it) {
    EXPECT_EQ(it.value().at("status"), "applied") << it.key() << ": " << fixed.json.dump(2);
  }
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty());
}

TEST_F(ControlTest, RefreshSeesAnOutOfBandSchemaChangeAndApplyRevertsIt) {
  Bootstrap();
  {
    auto db = Database::Open(Uri("knowledge"));
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto applied = (*db)->ApplySchema(kPeopleDescribed);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    ASSERT_TRUE(applied->applied);
  }
  EXPECT_TRUE(RunPlan(dir_).json.at("changes").empty()) << "plan compares with the recorded state only";
  CommandResult refresh = RunRefresh(dir_);
  ASSERT_TRUE(refresh.ok) << refresh.json.dump(2);
  EXPECT_EQ(refresh.json.at("operation"), "refresh");
  EXPECT_EQ(Revision(refresh.json), 3u);
  for (const char* r : {"graph.knowledge", "schema.knowledge"}) {
    const auto& st = refresh.json.at("resource_statuses").at(r);
    EXPECT_EQ(st.at("status"), "drifted") << r;
    EXPECT_EQ(st.at("conditions"), OrderedJson::array({"schema_mismatch"})) << r;
  }
  const auto& observed = refresh.json.at("observations").at("graph.knowledge");
  EXPECT_EQ(observed.at("schema_matches_desired"), false);
  EXPECT_EQ(observed.at("schema_digest"), Sha256Hex(kPeopleDescribed));
  EXPECT_EQ(refresh.json.at("resource_digests").at("schema.knowledge"), Sha256Hex(kPeopleDescribed));

  CommandResult plan = RunPlan(dir_);
  ASSERT_TRUE(plan.ok) << plan.json.dump(2);
  OrderedJson schema = FindChange(plan.json, "schema.knowledge");
  ASSERT_FALSE(schema.is_null()) << plan.json.dump(2);
  EXPECT_EQ(schema.at("operation"), "update");
  EXPECT_EQ(schema.at("before_digest"), Sha256Hex(kPeopleDescribed));
  EXPECT_EQ(schema.at("after_digest"), Sha256Hex(kPeople));
  EXPECT_EQ(schema.at("migration").at("supported"), true);
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
  EXPECT_EQ(StatusOf(RunRefresh(dir_).json, "schema.knowledge"), "applied");
}

TEST_F(ControlTest, RefreshSeesAMissingRootAndApplyRecreatesIt) {
  Bootstrap();
  fs::remove_all(Uri("knowledge"));
  CommandResult refresh = RunRefresh(dir_);
  ASSERT_TRUE(refresh.ok) << refresh.json.dump(2);
  EXPECT_EQ(refresh.json.at("resource_statuses").at("graph.knowledge").at("conditions"),
            OrderedJson::array({"graph_missing"}));
  EXPECT_EQ(refresh.json.at("observations").at("graph.knowledge").at("exists"), false);
  EXPECT_FALSE(refresh.json.at("resource_digests").contains("graph.knowledge"));
  EXPECT_FALSE(refresh.json.at("resource_digests").contains("schema.knowledge"));

  CommandResult plan = RunPlan(dir_);
  EXPECT_EQ(Ops(plan.json), (Map{{"graph.knowledge", "create"}, {"schema.knowledge", "create"}}));
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(LiveSchema("knowledge"), kPeople);
}

TEST_F(ControlTest, LostCatalogObjectIsReportedDroppedAndRewritten) {
  Bootstrap();
  const fs::path object = CatalogPath("query.knowledge.find_person", kFindPerson);
  ASSERT_TRUE(fs::remove(object));
  CommandResult status = RunStatus(dir_);
  ASSERT_TRUE(status.ok) << status.json.dump(2);
  EXPECT_TRUE(HasDiagnostic(status.json, "catalog_payload_missing", "query.knowledge.find_person"))
      << status.json.dump(2);
  EXPECT_TRUE(status.json.at("resource_digests").contains("query.knowledge.find_person")) << "status never writes";

  CommandResult refresh = RunRefresh(dir_);
  ASSERT_TRUE(refresh.ok) << refresh.json.dump(2);
  EXPECT_FALSE(refresh.json.at("resource_digests").contains("query.knowledge.find_person"));
  EXPECT_EQ(refresh.json.at("resource_statuses").at("query.knowledge.find_person").at("conditions"),
            OrderedJson::array({"payload_missing"}));

  CommandResult plan = RunPlan(dir_);
  EXPECT_EQ(Ops(plan.json), (Map{{"graph.knowledge", "update"}, {"query.knowledge.find_person", "create"}}));
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  EXPECT_EQ(ReadFile(object), kFindPerson);
  CommandResult clean = RunStatus(dir_);
  EXPECT_TRUE(clean.json.at("diagnostics").empty()) << clean.json.dump(2);
}

TEST_F(ControlTest, HeldLockBlocksWritersUntilForceUnlockedById) {
  Bootstrap();
  Ledger ledger = OpenLedger();
  auto lock = ledger.AcquireLock("apply");
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  const std::string id = lock->lock_id;
  Write("queries/find_person.gq", kFindPersonV2);

  CommandResult apply = Apply();
  EXPECT_FALSE(apply.ok);
  ASSERT_EQ(CodesOf(apply.json), Codes{"state_lock_held"}) << apply.json.dump(2);
  EXPECT_NE(apply.json.at("diagnostics")[0].at("message").get<std::string>().find(id), std::string::npos);
  EXPECT_EQ(apply.json.at("state_written"), false);
  EXPECT_FALSE(fs::exists(CatalogPath("query.knowledge.find_person", kFindPersonV2)));
  EXPECT_EQ(CodesOf(RunRefresh(dir_).json), Codes{"state_lock_held"});
  EXPECT_EQ(CodesOf(RunImport(dir_).json), Codes{"state_lock_held"});

  for (const CommandResult& r : {RunStatus(dir_), RunPlan(dir_)}) {  // neither takes the lock
    ASSERT_TRUE(r.ok) << r.json.dump(2);
    EXPECT_EQ(r.json.at("state_observations").at("locked"), true);
    EXPECT_EQ(r.json.at("state_observations").at("lock_id"), id);
    EXPECT_EQ(r.json.at("state_observations").at("lock_operation"), "apply");
  }

  CommandResult wrong = RunForceUnlock(dir_, "01ZZZZZZZZZZZZZZZZZZZZZZZZ");
  EXPECT_FALSE(wrong.ok);
  EXPECT_EQ(CodesOf(wrong.json), Codes{"state_lock_id_mismatch"}) << wrong.json.dump(2);
  EXPECT_EQ(wrong.json.at("lock_removed"), false);
  auto still = ledger.ReadLock();
  ASSERT_TRUE(still.ok() && still->has_value());
  EXPECT_EQ((*still)->lock_id, id);

  CommandResult unlock = RunForceUnlock(dir_, id);
  ASSERT_TRUE(unlock.ok) << unlock.json.dump(2);
  EXPECT_EQ(unlock.json.at("lock_removed"), true);
  EXPECT_EQ(unlock.json.at("state_observations").at("locked"), false);
  CommandResult after = Apply();
  ASSERT_TRUE(after.ok) << after.json.dump(2);
  EXPECT_EQ(after.json.at("converged"), true);
  EXPECT_EQ(after.json.at("applied_count"), 1);
  EXPECT_EQ(CodesOf(RunForceUnlock(dir_, id).json), Codes{"state_lock_missing"});
}

TEST_F(ControlTest, CorruptNewestStateIsRejected) {
  const uint64_t rev = Revision(Bootstrap());
  Ledger ledger = OpenLedger();
  const std::string older = *ledger.store().Get(StateKey(rev - 1));
  // Not JSON; an unknown key; an object that holds another revision than its name says.
  const std::string truncated = "{\"version\": 1, \"state_rev";
  const std::string unknown_key = "{\"version\": 1, \"state_revision\": " + std::to_string(rev) + ", \"x\": {}}";
  for (const std::string& garbage : {truncated, unknown_key, older}) {
    ASSERT_TRUE(ledger.store().Put(StateKey(rev), garbage).ok());
    for (const CommandResult& r : {RunPlan(dir_), Apply(), RunStatus(dir_), RunRefresh(dir_)}) {
      EXPECT_FALSE(r.ok) << garbage;
      EXPECT_EQ(CodesOf(r.json), Codes{"invalid_state_json"}) << garbage << "\n" << r.json.dump(2);
    }
    EXPECT_FALSE(fs::exists(Path(StateKey(rev + 1))));
    EXPECT_FALSE(fs::exists(Path(Ledger::kLockKey)));
  }
}

// The same cluster with `storage: s3://...` on the in-process S3 test server: the ledger, the
// catalog and the graphs live there, nothing in the config folder.
TEST_F(ControlTest, S3StorageRoot) {
  auto s3 = s3server::TestS3::Start();
  ASSERT_TRUE(s3.ok()) << s3.status().ToString();
  struct ScopedEnv {  // the AWS_* variables io::OpenStore reads for s3:// URIs
    explicit ScopedEnv(std::map<std::string, std::string> vars) : vars_(std::move(vars)) {
      for (const auto& [k, v] : vars_) ::setenv(k.c_str(), v.c_str(), 1);
    }
    ~ScopedEnv() {
      for (const auto& [k, v] : vars_) ::unsetenv(k.c_str());
    }
    std::map<std::string, std::string> vars_;
  } env((*s3)->Env());
  const std::string storage = (*s3)->Uri(s3server::TestS3::NewPrefix());
  WriteConfig({"extra"}, "[knowledge]", storage);
  Bootstrap();
  EXPECT_FALSE(fs::exists(Path("__cluster")));
  EXPECT_FALSE(fs::exists(Path("graphs")));
  EXPECT_EQ(LiveSchemaAt(storage + "/graphs/knowledge.omni"), kPeople);
  EXPECT_EQ(LiveSchemaAt(storage + "/graphs/extra.omni"), kDocs);

  WriteConfig({}, "[knowledge]", storage);
  EXPECT_EQ(Apply().json.at("converged"), false);
  ASSERT_TRUE(RunApprove(dir_, "graph.extra", "alice").ok);
  CommandResult apply = Apply();
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  auto gone = Database::Open(storage + "/graphs/extra.omni");
  EXPECT_FALSE(gone.ok());
  if (!gone.ok()) {
    EXPECT_EQ(gone.status().category(), StatusCode::kNotFound) << gone.status().ToString();
  }
  EXPECT_EQ(LiveSchemaAt(storage + "/graphs/knowledge.omni"), kPeople);
  CommandResult again = Apply();
  EXPECT_EQ(again.json.at("state_written"), false) << again.json.dump(2);
  CommandResult status = RunStatus(dir_);
  ASSERT_TRUE(status.ok) << status.json.dump(2);
  EXPECT_EQ(status.json.at("state_observations").at("state_path"), storage + "/__cluster/state");
  EXPECT_EQ(status.json.at("state_observations").at("locked"), false);
}

}  // namespace
}  // namespace omnigraph::cluster
