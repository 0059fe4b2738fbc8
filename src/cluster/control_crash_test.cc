// `cluster apply` under a real kill -9 at each of its failpoints (the child dies mid-apply; the
// parent finds the lock left behind, force-unlocks it and converges), under an injected error, and
// under concurrent applies and state publications (the lock and the CAS on revision objects).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster/control.h"
#include "cluster/ledger.h"
#include "common/error_codes.h"
#include "common/failpoint.h"
#include "common/hash.h"
#include "common/ulid.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cluster {
namespace {

namespace fs = std::filesystem;
using Map = std::map<std::string, std::string>;
using Codes = std::vector<std::string>;

constexpr const char* kPeople =
    "node Person {\n  name: String @key\n  age: I32?\n}\nnode Company {\n  name: String @key\n}\n"
    "edge WorksAt: Person -> Company\n";
constexpr const char* kDocs = "node Doc {\n  slug: String @key\n}\n";
constexpr const char* kFindPerson =
    "query find_person($name: String) {\n  match { $p: Person { name: $name } }\n  return { $p.name, $p.age }\n}\n";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Codes CodesOf(const OrderedJson& j, const std::string& severity = "error") {
  Codes out;
  for (const auto& d : j.at("diagnostics")) {
    if (d.at("severity") == severity) out.push_back(d.at("code").get<std::string>());
  }
  return out;
}

uint64_t Revision(const OrderedJson& j) { return j.at("state_observations").at("state_revision").get<uint64_t>(); }

class ControlFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("og-control-" + NewUlidString())).string();
    fs::create_directories(dir_);
    Write("people.pg", kPeople);
    Write("queries/find_person.gq", kFindPerson);
    Write("base.policy.yaml", "version: 1\nrules: []\n");
    WriteConfig({});
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories(Path(rel).parent_path());
    std::ofstream(Path(rel), std::ios::binary | std::ios::trunc) << text;
  }
  // Graph `knowledge` (people.pg, queries/), a schema-only graph per `extra` (<id>.pg = kDocs),
  // policy `base` bound to knowledge.
  void WriteConfig(const std::vector<std::string>& extra) {
    std::string y = "version: 1\ngraphs:\n  knowledge:\n    schema: people.pg\n    queries: queries/\n";
    for (const auto& g : extra) {
      Write(g + ".pg", kDocs);
      y += "  " + g + ":\n    schema: " + g + ".pg\n";
    }
    y += "policies:\n  base:\n    file: base.policy.yaml\n    applies_to: [knowledge]\n";
    Write("cluster.yaml", y);
  }
  fs::path Path(const std::string& rel) const { return fs::path(dir_) / rel; }
  std::string Uri(const std::string& graph) const { return dir_ + "/graphs/" + graph + ".omni"; }
  std::string LiveSchema(const std::string& graph) const {
    OpenOptions o;
    o.read_only = true;
    auto db = Database::Open(Uri(graph), o);
    if (!db.ok()) return "<" + db.status().ToString() + ">";
    auto source = (*db)->SchemaSource();
    return source.ok() ? *source : "<" + source.status().ToString() + ">";
  }
  fs::path CatalogPath(const std::string& address, const std::string& content) const {
    return Path(Ledger::PayloadKey(address, Sha256Hex(content)));
  }
  void Bootstrap() {
    CommandResult imported = RunImport(dir_);
    ASSERT_TRUE(imported.ok) << imported.json.dump(2);
    CommandResult applied = RunApply(dir_, std::string("tester"));
    ASSERT_TRUE(applied.ok) << applied.json.dump(2);
    ASSERT_EQ(applied.json.at("converged"), true) << applied.json.dump(2);
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

#if defined(OG_FAILPOINTS_ENABLED)

constexpr const char* kPeopleEmail =
    "node Person {\n  name: String @key\n  age: I32?\n  email: String?\n}\nnode Company {\n  name: String @key\n}\n"
    "edge WorksAt: Person -> Company\n";
constexpr const char* kFindPersonV2 =
    "query find_person($name: String) {\n  match { $p: Person { name: $name } }\n  return { $p.name }\n}\n";
// Set by the parent around EXPECT_EXIT: the "threadsafe" death-test child re-runs the test from the
// start in a fresh process and must work in the parent's folder without preparing it again.
constexpr const char* kChildDirEnv = "OG_CLUSTER_CRASH_TEST_DIR";

Map Dispositions(const OrderedJson& j) {
  Map m;
  for (const auto& c : j.at("changes")) {
    std::string d = c.value("disposition", std::string());
    if (c.contains("reason")) d += ":" + c.at("reason").get<std::string>();
    m[c.at("resource").get<std::string>()] = d;
  }
  return m;
}

// What an apply killed at a point has done (every point comes before the state is published).
struct Progress {
  bool created = false;   // graph.fresh exists
  bool migrated = false;  // knowledge holds kPeopleEmail
  bool catalog = false;   // the edited query's catalog object exists
  bool deleted = false;   // graph.old is gone
};

class ControlCrashTest : public ControlFixture {
 protected:
  void SetUp() override {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    if (const char* dir = std::getenv(kChildDirEnv); dir != nullptr && *dir != '\0') {
      dir_ = dir;
      in_child_ = true;
      return;
    }
    ControlFixture::SetUp();
  }
  void TearDown() override {
    ::unsetenv(kChildDirEnv);
    if (!in_child_) ControlFixture::TearDown();
  }

  // A converged cluster {knowledge, old}, then a config with a graph create (fresh), a schema
  // migration and a query edit (knowledge) and an approved graph delete (old): an apply of it
  // passes every cluster.apply.* failpoint once.
  void Prepare() {
    WriteConfig({"old"});
    ASSERT_NO_FATAL_FAILURE(Bootstrap());
    WriteConfig({"fresh"});
    Write("people.pg", kPeopleEmail);
    Write("queries/find_person.gq", kFindPersonV2);
    CommandResult approve = RunApprove(dir_, "graph.old", "alice");
    ASSERT_TRUE(approve.ok) << approve.json.dump(2);
    approval_id_ = approve.json.at("approval_id").get<std::string>();
    CommandResult plan = RunPlan(dir_);
    ASSERT_TRUE(plan.ok) << plan.json.dump(2);
    ASSERT_EQ(Dispositions(plan.json), (Map{{"graph.fresh", "applied"},
                                            {"graph.knowledge", "derived"},
                                            {"graph.old", "applied"},
                                            {"query.knowledge.find_person", "applied"},
                                            {"schema.fresh", "applied"},
                                            {"schema.knowledge", "applied"},
                                            {"schema.old", "applied"}}));
    revision_ = Revision(plan.json);
  }

  Progress Observe() const {
    return {fs::exists(Uri("fresh")), LiveSchema("knowledge") == kPeopleEmail,
            fs::exists(CatalogPath("query.knowledge.find_person", kFindPersonV2)), !fs::exists(Uri("old"))};
  }

  // The cluster reached the desired config, once, with the approval consumed.
  void ExpectConverged(uint64_t revision) {
    CommandResult plan = RunPlan(dir_);
    ASSERT_TRUE(plan.ok) << plan.json.dump(2);
    EXPECT_TRUE(plan.json.at("changes").empty()) << plan.json.dump(2);
    EXPECT_EQ(Revision(plan.json), revision);
    EXPECT_EQ(LiveSchema("knowledge"), kPeopleEmail);
    EXPECT_EQ(LiveSchema("fresh"), kDocs);
    EXPECT_FALSE(fs::exists(Uri("old")));
    EXPECT_EQ(ReadFile(CatalogPath("query.knowledge.find_person", kFindPersonV2)), kFindPersonV2);
    const fs::path artifact = Path(std::string(Ledger::kApprovalsPrefix) + approval_id_ + ".json");
    EXPECT_TRUE(Json::parse(ReadFile(artifact)).at("consumed_at").is_string());
  }

  void KillAtAndRecover(const char* point, Progress expected) {
    if (!in_child_) {
      ASSERT_NO_FATAL_FAILURE(Prepare());
    }
    ::setenv(kChildDirEnv, dir_.c_str(), 1);
    EXPECT_EXIT(
        {
          FailpointRegistry::Action kill;
          kill.fn = []() -> Status {
            std::raise(SIGKILL);
            return Status::Ok();
          };
          if (FailpointRegistry::Global().Arm(point, kill).ok()) (void)RunApply(dir_, std::string("crasher"));
        },
        ::testing::KilledBySignal(SIGKILL), "");
    ::unsetenv(kChildDirEnv);
    if (in_child_) return;

    // The kill published nothing and left its lock; the work up to the point is done.
    Progress p = Observe();
    EXPECT_EQ(p.created, expected.created) << point;
    EXPECT_EQ(p.migrated, expected.migrated) << point;
    EXPECT_EQ(p.catalog, expected.catalog) << point;
    EXPECT_EQ(p.deleted, expected.deleted) << point;
    CommandResult status = RunStatus(dir_);
    ASSERT_TRUE(status.ok) << status.json.dump(2);
    EXPECT_EQ(Revision(status.json), revision_);
    const OrderedJson& obs = status.json.at("state_observations");
    ASSERT_EQ(obs.at("locked"), true) << point << "\n" << status.json.dump(2);
    const std::string lock_id = obs.at("lock_id").get<std::string>();
    EXPECT_EQ(obs.at("lock_operation"), "apply");
    EXPECT_NE(obs.at("lock_pid").get<uint32_t>(), static_cast<uint32_t>(::getpid())) << "the child's lock";

    CommandResult blocked = RunApply(dir_, std::string("recoverer"));
    EXPECT_FALSE(blocked.ok);
    ASSERT_EQ(CodesOf(blocked.json), Codes{"state_lock_held"}) << blocked.json.dump(2);
    EXPECT_NE(blocked.json.at("diagnostics")[0].at("message").get<std::string>().find(lock_id), std::string::npos);
    CommandResult unlock = RunForceUnlock(dir_, lock_id);
    ASSERT_TRUE(unlock.ok) << unlock.json.dump(2);
    EXPECT_EQ(unlock.json.at("lock_removed"), true);

    CommandResult apply = RunApply(dir_, std::string("recoverer"));
    ASSERT_TRUE(apply.ok) << point << "\n" << apply.json.dump(2);
    EXPECT_EQ(apply.json.at("converged"), true) << point << "\n" << apply.json.dump(2);
    EXPECT_EQ(Revision(apply.json), revision_ + 1);
    ExpectConverged(revision_ + 1);
  }

  bool in_child_ = false;
  std::string approval_id_;
  uint64_t revision_ = 0;
};

TEST_F(ControlCrashTest, KilledAfterLock) { KillAtAndRecover("cluster.apply.after_lock", {}); }

TEST_F(ControlCrashTest, KilledAfterGraphCreate) {
  KillAtAndRecover("cluster.apply.after_graph_create", {.created = true});
}

TEST_F(ControlCrashTest, KilledAfterSchemaApply) {
  KillAtAndRecover("cluster.apply.after_schema_apply", {.created = true, .migrated = true});
}

TEST_F(ControlCrashTest, KilledAfterPayloadPhase) {
  KillAtAndRecover("cluster.apply.after_payload_phase", {.created = true, .migrated = true, .catalog = true});
}

TEST_F(ControlCrashTest, KilledAfterGraphDelete) {
  KillAtAndRecover("cluster.apply.after_graph_delete",
                   {.created = true, .migrated = true, .catalog = true, .deleted = true});
}

TEST_F(ControlCrashTest, KilledBeforeStateWrite) {
  KillAtAndRecover("cluster.apply.before_state_write",
                   {.created = true, .migrated = true, .catalog = true, .deleted = true});
}

// An error (no kill) after the approved delete: the run stops, publishes nothing and releases the
// lock; the next apply finishes the job with the still-unconsumed approval.
TEST_F(ControlCrashTest, InjectedErrorReleasesTheLockAndTheNextApplyConverges) {
  ASSERT_NO_FATAL_FAILURE(Prepare());
  {
    ScopedFailpoints scope;
    ASSERT_TRUE(FailpointRegistry::Global().ArmError("cluster.apply.after_graph_delete", IoError("injected")).ok());
    CommandResult failed = RunApply(dir_, std::string("tester"));
    EXPECT_FALSE(failed.ok);
    EXPECT_EQ(CodesOf(failed.json), Codes{"injected_failpoint"}) << failed.json.dump(2);
    EXPECT_EQ(failed.json.at("state_written"), false);
    EXPECT_EQ(failed.json.at("converged"), false);
    EXPECT_EQ(FailpointRegistry::Global().HitCount("cluster.apply.after_graph_delete"), 1u);
  }
  EXPECT_FALSE(fs::exists(Path(Ledger::kLockKey)));
  CommandResult status = RunStatus(dir_);
  EXPECT_EQ(status.json.at("state_observations").at("locked"), false);
  EXPECT_EQ(Revision(status.json), revision_);
  EXPECT_FALSE(fs::exists(Uri("old")));
  const fs::path artifact = Path(std::string(Ledger::kApprovalsPrefix) + approval_id_ + ".json");
  EXPECT_TRUE(Json::parse(ReadFile(artifact)).at("consumed_at").is_null());

  CommandResult apply = RunApply(dir_, std::string("tester"));
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(apply.json.at("converged"), true);
  ExpectConverged(revision_ + 1);
}

#endif  // OG_FAILPOINTS_ENABLED

class ControlConcurrencyTest : public ControlFixture {};

// Two applies at once, five times over fresh edits: one runs, the other finds the lock (or, if it
// starts after the first finished, has nothing left to do); the revisions stay consecutive.
TEST_F(ControlConcurrencyTest, ConcurrentAppliesSerializeOnTheLock) {
  ASSERT_NO_FATAL_FAILURE(Bootstrap());
  for (int round = 0; round < 5; ++round) {
    const std::string query = kFindPerson + std::string(round + 1, '\n');
    Write("queries/find_person.gq", query);
    CommandResult results[2];
    std::thread a([&] { results[0] = RunApply(dir_, std::string("a")); });
    std::thread b([&] { results[1] = RunApply(dir_, std::string("b")); });
    a.join();
    b.join();
    int succeeded = 0;
    for (const CommandResult& r : results) {
      if (r.ok) {
        ++succeeded;
        EXPECT_EQ(r.json.at("converged"), true) << r.json.dump(2);
        continue;
      }
      EXPECT_EQ(CodesOf(r.json), Codes{"state_lock_held"}) << "round " << round << "\n" << r.json.dump(2);
      EXPECT_EQ(r.json.at("state_written"), false);
    }
    EXPECT_GE(succeeded, 1) << "round " << round;
    EXPECT_LE(results[0].json.at("state_written").get<bool>() + results[1].json.at("state_written").get<bool>(), 1)
        << "round " << round;
    CommandResult after = RunApply(dir_, std::string("c"));
    ASSERT_TRUE(after.ok) << after.json.dump(2);
    EXPECT_EQ(after.json.at("converged"), true);
    EXPECT_EQ(after.json.at("state_written"), false) << "the winner of the round already converged";
    EXPECT_EQ(ReadFile(CatalogPath("query.knowledge.find_person", query)), query);
  }
  Ledger ledger = OpenLedger();
  auto listed = ledger.store().List(Ledger::kStatePrefix);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::string> keys;
  for (const auto& m : *listed) keys.push_back(m.key);
  std::sort(keys.begin(), keys.end());
  ASSERT_EQ(keys.size(), Revision(RunStatus(dir_).json));
  EXPECT_EQ(keys.size(), 7u);  // import, bootstrap apply, one apply per round
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i], StateKey(i + 1));
    auto bytes = ledger.store().Get(keys[i]);
    ASSERT_TRUE(bytes.ok());
    auto parsed = ParseState(*bytes, keys[i]);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(parsed->revision, i + 1);
  }
  EXPECT_FALSE(fs::exists(Path(Ledger::kLockKey)));
}

// Publishing is a create of the next revision's object: a second publication of the same revision
// (sequential or racing) gets AlreadyExists and the first one stays.
TEST_F(ControlConcurrencyTest, PublishingARevisionTwiceLosesTheCas) {
  ASSERT_NO_FATAL_FAILURE(Bootstrap());
  Ledger ledger = OpenLedger();
  auto read = ledger.ReadState();
  ASSERT_TRUE(read.ok() && read->state) << read.status().ToString();
  ClusterState next = *read->state;
  next.revision += 1;
  auto first = ledger.PublishState(next);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, StateCas(SerializeState(next)));
  ClusterState other = next;
  other.observations["graph.knowledge"] = Json{{"kind", "other"}};
  auto second = ledger.PublishState(other);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().category(), StatusCode::kAlreadyExists);
  auto reread = ledger.ReadState();
  ASSERT_TRUE(reread.ok() && reread->state);
  EXPECT_EQ(*reread->state, next);
  EXPECT_EQ(*reread->cas, *first);

  // Racing writers of one revision, each with its own ledger: exactly one wins.
  for (int round = 0; round < 5; ++round) {
    const uint64_t revision = next.revision + 1 + round;
    Status results[2];
    std::vector<std::thread> writers;
    for (int w = 0; w < 2; ++w) {
      writers.emplace_back([&, w] {
        Ledger mine = OpenLedger();
        ClusterState s = next;
        s.revision = revision;
        s.observations["writer"] = Json{{"w", w}};
        auto published = mine.PublishState(s);
        results[w] = published.ok() ? Status::Ok() : published.status();
      });
    }
    for (auto& t : writers) t.join();
    EXPECT_NE(results[0].ok(), results[1].ok()) << results[0].ToString() << " / " << results[1].ToString();
    for (const Status& s : results) {
      if (!s.ok()) {
        EXPECT_EQ(s.category(), StatusCode::kAlreadyExists) << s.ToString();
      }
    }
    auto latest = ledger.ReadState();
    ASSERT_TRUE(latest.ok() && latest->state);
    EXPECT_EQ(latest->state->revision, revision);
  }
  // The commands read the newest revision and keep going from it.
  CommandResult apply = RunApply(dir_, std::string("tester"));
  ASSERT_TRUE(apply.ok) << apply.json.dump(2);
  EXPECT_EQ(Revision(apply.json), next.revision + 5);
}

}  // namespace
}  // namespace omnigraph::cluster
