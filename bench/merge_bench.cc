// Branch and merge costs (issue 7 "Bench"; docs/architecture.md, "Branches",
// "Merges and change listing"), counted with CountingStore (requests, bytes) and LatencyStore
// (sequential round trips: requests started while none was in flight, with 20 ms per request) over
// the in-memory store:
//   (a) branch create on graphs with 4 and 200 types (warm process);
//   (b) the first one-row write on a new branch vs the same write on main (warm process);
//   (c) a three-way merge of ~1k changed entities (inserts, updates, deletes of nodes and edges;
//       a @unique property and a @card edge in the schema) into graphs of 100k and 1M entities:
//       wall time, requests and bytes read of MergeBranches on a freshly opened handle (cold
//       caches), median of --reps merges (each on its own branch, changing other entities).
//   build/ci/bench/merge_bench [--sizes 100000,1000000] [--reps 5] [--changes spread|clustered]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/clock.h"
#include "engine/graph/graph.h"
#include "engine/load/loader.h"
#include "engine/merge/merge.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/latency_store.h"
#include "io/memory_store.h"

using namespace omnigraph;
using namespace omnigraph::engine;

namespace {

void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}
template <class T>
T Take(Result<T> r, const char* what) {
  Check(r.status(), what);
  return std::move(r).value();
}

using ull = unsigned long long;

// Forwards to a base store and sums the bytes read per kind of object (by key), to show where a
// merge's reads go. Thread-safe.
class ReadBreakdownStore : public io::ObjectStore {
 public:
  explicit ReadBreakdownStore(std::shared_ptr<io::ObjectStore> base) : base_(std::move(base)) {}
  Result<std::string> Get(std::string_view key) override {
    auto r = base_->Get(key);
    if (r.ok()) Add(key, r->size());
    return r;
  }
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override {
    auto r = base_->GetRange(key, offset, length);
    if (r.ok()) Add(key, r->size());
    return r;
  }
  Result<io::ObjectMeta> Head(std::string_view key) override { return base_->Head(key); }
  Result<std::vector<io::ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override {
    return base_->List(prefix, start_after);
  }
  Result<std::vector<io::ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                               size_t max_keys) override {
    return base_->ListPage(prefix, start_after, max_keys);
  }
  Status Put(std::string_view key, std::string_view data) override { return base_->Put(key, data); }
  Status PutIfAbsent(std::string_view key, std::string_view data) override { return base_->PutIfAbsent(key, data); }
  Result<std::unique_ptr<io::ObjectWriter>> NewWriter(std::string_view key) override { return base_->NewWriter(key); }
  Status Delete(std::string_view key) override { return base_->Delete(key); }
  std::string Describe() const override { return base_->Describe(); }

  void Reset() {
    std::lock_guard<std::mutex> l(mu_);
    bytes_.clear();
  }
  std::string ToString() const {
    std::lock_guard<std::mutex> l(mu_);
    std::string out;
    for (const auto& [kind, n] : bytes_) {
      char b[64];
      std::snprintf(b, sizeof(b), "%s%s %.2f MB", out.empty() ? "" : ", ", kind.c_str(), n / 1e6);
      out += b;
    }
    return out;
  }

 private:
  void Add(std::string_view key, uint64_t n) {
    const char* kind = key.find("/idx/") != std::string_view::npos        ? "id segments"
                       : key.find("/data/") != std::string_view::npos     ? "fragments"
                       : key.find("/del/") != std::string_view::npos      ? "deletion vectors"
                       : key.find("/versions/") != std::string_view::npos ? "manifests"
                       : key.find("commits/") != std::string_view::npos   ? "commits"
                                                                          : "other";
    std::lock_guard<std::mutex> l(mu_);
    bytes_[kind] += n;
  }
  std::shared_ptr<io::ObjectStore> base_;
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> bytes_;
};

template <class T>
T Median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Load(Graph& g, const std::string& ndjson, const std::string& branch, LoadMode mode) {
  LoadOptions o;
  o.branch = branch;
  o.mode = mode;
  Take(LoadNdjson(g, ndjson, o), "load");
}

// ---- (a), (b): branch create and first write, as in src/engine/graph/branch_test.cc ----

std::string SchemaWithTypes(int types) {
  std::string s = "node Person { name: String @key, age: I32? }\nedge Knows: Person -> Person\n";
  for (int i = 2; i < types; ++i) s += "node Extra" + std::to_string(i) + " { slug: String @key }\n";
  return s;
}

std::string PersonLine(const std::string& name, int age) {
  return R"({"type":"Person","data":{"name":")" + name + R"(","age":)" + std::to_string(age) + "}}\n";
}

struct Cost {
  uint64_t requests = 0, rounds = 0;
  std::string detail;
};

enum class Step { kCreate, kFirstBranchWrite, kMainWrite };

Cost Measure(int types, Step step) {
  auto mem = std::make_shared<io::MemoryStore>();
  auto counting = std::make_shared<io::CountingStore>(mem);
  auto g0 = Take(Graph::Init(counting, SchemaWithTypes(types)), "init");
  Load(*g0, PersonLine("a", 1), "main", LoadMode::kMerge);
  auto slow = std::make_shared<io::LatencyStore>(counting, /*delay_micros=*/20000);
  auto g = Take(Graph::Open(slow), "open");
  Load(*g, PersonLine("warm", 1), "main", LoadMode::kMerge);  // warm: head, commit, catalog cached
  std::string branch = "main";
  if (step != Step::kMainWrite) {
    counting->Reset();
    slow->ResetRounds();
    Take(g->CreateBranch("feature/x"), "create");
    branch = "feature/x";
  }
  if (step != Step::kCreate) {
    counting->Reset();
    slow->ResetRounds();
    Load(*g, PersonLine("measured", 2), branch, LoadMode::kMerge);
  }
  return Cost{counting->counts().total(), slow->sequential_rounds(), counting->counts().ToString()};
}

// ---- (c): merge of ~1k changed entities into a large graph ----

constexpr const char* kMergeSchema = R"(node Person {
  name: String @key
  email: String? @unique
  age: I32?
}
edge Knows: Person -> Person @card(0..3) {
  w: I32?
}
)";

// Per merge (rep): on the source branch 250 person inserts, 250 person updates (half of them
// change the @unique email), 100 person deletes, 200 edge inserts, 100 edge updates, 100 edge
// deletes = 1,000 entities; on the target, 50 person updates and 50 edge inserts (so the merge is
// three-way, with both sides changing both tables).
struct Plan {
  uint64_t persons = 0, edges = 0;
  int reps = 0;
  bool clustered = false;  // changes in one contiguous id window instead of spread over the graph
  uint64_t person_mark_mod = 0, edge_mark_mod = 0;

  Plan(uint64_t entities, int r, bool c) : persons(entities / 2), edges(entities / 2), reps(r), clustered(c) {
    person_mark_mod = persons / (100 * static_cast<uint64_t>(reps));
    edge_mark_mod = edges / (100 * static_cast<uint64_t>(reps));
  }
  // Persons and edges marked for deletion by rep r carry age / w = 1000 + r (100 per rep): spread
  // evenly, or every other entity of one window (clustered). Never two marked in a row.
  uint64_t Window(uint64_t total) const { return total / 2; }
  bool Marked(uint64_t i, uint64_t total, uint64_t mod, uint64_t salt) const {
    if (!clustered) return i % mod == salt;
    return i >= Window(total) && i < Window(total) + 200 * static_cast<uint64_t>(reps) && (i - Window(total)) % 2 == 1;
  }
  int RepOf(uint64_t i, uint64_t total, uint64_t mod) const {
    if (!clustered) return static_cast<int>((i / mod) % reps);
    return static_cast<int>((i - Window(total)) / 200);
  }
  bool PersonMarked(uint64_t i) const { return Marked(i, persons, person_mark_mod, 5); }
  int PersonRep(uint64_t i) const { return RepOf(i, persons, person_mark_mod); }
  bool EdgeMarked(uint64_t j) const { return Marked(j, edges, edge_mark_mod, 9); }
  int EdgeRep(uint64_t j) const { return RepOf(j, edges, edge_mark_mod); }
  uint64_t Unmarked(uint64_t i) const { return PersonMarked(i % persons) ? (i + 1) % persons : i % persons; }
  uint64_t EdgeSrc(uint64_t j) const { return Unmarked(j); }
  uint64_t EdgeDst(uint64_t j) const { return Unmarked((j * 7919 + 13) % persons); }
  // The k-th of n entities of a rep's change set, among `total`: spread evenly over the graph, or
  // packed in one window (clustered).
  uint64_t Pick(uint64_t k, uint64_t n, uint64_t total, int rep, uint64_t salt) const {
    if (clustered) return (total / 3 + static_cast<uint64_t>(rep) * 4 * n + salt * n + k * 2) % total;
    return (k * (total / n) + salt + static_cast<uint64_t>(rep) * 7) % total;
  }
};

std::string Pid(uint64_t i) {
  char b[32];
  std::snprintf(b, sizeof(b), "p%08llu", static_cast<ull>(i));
  return b;
}
std::string Kid(uint64_t j) {
  char b[32];
  std::snprintf(b, sizeof(b), "k%08llu", static_cast<ull>(j));
  return b;
}
std::string PersonJson(const std::string& name, const std::string& email, int64_t age) {
  return R"({"type":"Person","data":{"name":")" + name + R"(","email":")" + email + R"(","age":)" +
         std::to_string(age) + "}}\n";
}
std::string EdgeJson(const std::string& id, const std::string& from, const std::string& to, int64_t w) {
  return R"({"edge":"Knows","from":")" + from + R"(","to":")" + to + R"(","data":{"id":")" + id + R"(","w":)" +
         std::to_string(w) + "}}\n";
}

void BuildGraph(Graph& g, const Plan& p) {
  constexpr uint64_t kChunk = 250000;
  std::string doc;
  auto flush = [&](bool force) {
    if (doc.empty() || (!force && doc.size() < kChunk * 60)) return;
    Load(g, doc, "main", LoadMode::kAppend);
    doc.clear();
  };
  for (uint64_t i = 0; i < p.persons; ++i) {
    int64_t age = p.PersonMarked(i) ? 1000 + p.PersonRep(i) : static_cast<int64_t>(i % 100);
    char email[32];
    std::snprintf(email, sizeof(email), "e%08llu@x.org", static_cast<ull>(i));
    doc += PersonJson(Pid(i), email, age);
    flush(false);
  }
  flush(true);
  for (uint64_t j = 0; j < p.edges; ++j) {
    int64_t w = p.EdgeMarked(j) ? 1000 + p.EdgeRep(j) : static_cast<int64_t>(j % 100);
    doc += EdgeJson(Kid(j), Pid(p.EdgeSrc(j)), Pid(p.EdgeDst(j)), w);
    flush(false);
  }
  flush(true);
}

// The rep's changes: on `branch` (the source) and on main.
void MakeChanges(Graph& g, const Plan& p, int rep, const std::string& branch) {
  const std::string r = std::to_string(rep);
  std::string src;
  for (uint64_t k = 0; k < 250; ++k) {  // person inserts
    src += PersonJson("n" + r + "_" + std::to_string(k), "ne" + r + "_" + std::to_string(k) + "@x.org", 7);
  }
  for (uint64_t k = 0; k < 250; ++k) {  // person updates (half change the unique email)
    uint64_t i = p.Unmarked(p.Pick(k, 250, p.persons, rep, 11));
    char email[32];
    std::snprintf(email, sizeof(email), "e%08llu@x.org", static_cast<ull>(i));
    src += PersonJson(Pid(i), k % 2 ? "u" + r + "_" + std::to_string(k) + "@x.org" : std::string(email), 200 + rep);
  }
  for (uint64_t k = 0; k < 200; ++k) {  // edge inserts, from the new persons
    src += EdgeJson("nk" + r + "_" + std::to_string(k), "n" + r + "_" + std::to_string(k),
                    Pid(p.Unmarked(p.Pick(k, 200, p.persons, rep, 97))), 5);
  }
  for (uint64_t k = 0; k < 100; ++k) {  // edge updates (same endpoints, new w)
    uint64_t j = p.Pick(k, 100, p.edges, rep, 17);
    if (p.EdgeMarked(j)) j = (j + 1) % p.edges;
    src += EdgeJson(Kid(j), Pid(p.EdgeSrc(j)), Pid(p.EdgeDst(j)), 300 + rep);
  }
  Load(g, src, branch, LoadMode::kMerge);
  MutationOptions mo;
  mo.branch = branch;
  mo.now_ms = 0;
  const std::string mark = std::to_string(1000 + rep);
  auto del = RunMutation(g, "query d() { delete Person where age = " + mark + " delete Knows where w = " + mark + " }",
                         "{}", mo);
  Check(del.status(), "deletes");
  std::string main_side;
  for (uint64_t k = 0; k < 50; ++k) {
    uint64_t i = p.Unmarked(p.Pick(k, 50, p.persons, rep, 23));
    char email[32];
    std::snprintf(email, sizeof(email), "e%08llu@x.org", static_cast<ull>(i));
    main_side += PersonJson(Pid(i), email, 400 + rep);
  }
  for (uint64_t k = 0; k < 50; ++k) {
    main_side += EdgeJson("mk" + r + "_" + std::to_string(k), "n" + r + "_" + std::to_string(k + 200) + "x",
                          Pid(p.Unmarked(p.Pick(k, 50, p.persons, rep, 31))), 6);
  }
  // The main-side edges start at main-only persons (so no @card bound is reached).
  std::string main_persons;
  for (uint64_t k = 0; k < 50; ++k) {
    main_persons +=
        PersonJson("n" + r + "_" + std::to_string(k + 200) + "x", "me" + r + "_" + std::to_string(k) + "@x.org", 8);
  }
  Load(g, main_persons + main_side, "main", LoadMode::kMerge);
}

struct MergeCost {
  double ms = 0;
  uint64_t requests = 0, bytes_read = 0, bytes_written = 0;
  std::string detail;
  size_t changed = 0;
};

void MergeSize(uint64_t entities, int reps, bool clustered) {
  Plan p(entities, reps, clustered);
  auto mem = std::make_shared<io::MemoryStore>();
  auto breakdown = std::make_shared<ReadBreakdownStore>(mem);
  auto counting = std::make_shared<io::CountingStore>(breakdown);
  auto g = Take(Graph::Init(counting, kMergeSchema), "init");
  int64_t t0 = MonotonicNanos();
  BuildGraph(*g, p);
  std::fprintf(stderr, "built %llu entities in %.1f s\n", static_cast<ull>(entities),
               static_cast<double>(MonotonicNanos() - t0) / 1e9);
  std::vector<MergeCost> costs;
  for (int rep = 0; rep < reps; ++rep) {
    const std::string branch = "feat" + std::to_string(rep);
    Take(g->CreateBranch(branch), "branch");
    MakeChanges(*g, p, rep, branch);
    // A freshly opened handle: nothing cached (as a new process).
    auto fresh = Take(Graph::Open(counting), "open");
    counting->Reset();
    breakdown->Reset();
    MergeOptions mo;
    mo.source = branch;
    int64_t start = MonotonicNanos();
    engine::MergeResult res = Take(MergeBranches(*fresh, mo), "merge");
    MergeCost c;
    c.ms = static_cast<double>(MonotonicNanos() - start) / 1e6;
    io::StoreCounts counts = counting->counts();
    c.requests = counts.total();
    c.bytes_read = counts.bytes_read;
    c.bytes_written = counts.bytes_written;
    c.detail = counts.ToString() + "; read: " + breakdown->ToString();
    if (res.outcome != engine::MergeOutcome::kMerged) {
      std::fprintf(stderr, "expected a three-way merge, got %s\n",
                   std::string(engine::MergeOutcomeName(res.outcome)).c_str());
      std::exit(1);
    }
    for (const auto& [type, n] : res.summary) c.changed += n.inserted + n.updated + n.deleted;
    std::printf("  %s rep %d: %.1f ms, %llu requests, %.2f MB read, %.2f MB written, %zu entities merged (%s)\n",
                clustered ? "clustered" : "spread", rep, c.ms, static_cast<ull>(c.requests), c.bytes_read / 1e6,
                c.bytes_written / 1e6, c.changed, c.detail.c_str());
    costs.push_back(c);
  }
  std::vector<double> ms;
  std::vector<uint64_t> req, rd, wr;
  for (const auto& c : costs) {
    ms.push_back(c.ms);
    req.push_back(c.requests);
    rd.push_back(c.bytes_read);
    wr.push_back(c.bytes_written);
  }
  std::printf(
      "merge of %zu changed entities into %llu entities (%s changes), median of %d: %.1f ms, %llu requests, "
      "%.2f MB read, %.2f MB written\n",
      costs.front().changed, static_cast<ull>(entities), clustered ? "clustered" : "spread", reps, Median(ms),
      static_cast<ull>(Median(req)), Median(rd) / 1e6, Median(wr) / 1e6);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {100000, 1000000};
  int reps = 5;
  std::vector<bool> layouts = {false, true};
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--sizes") {
      sizes.clear();
      for (size_t b = 0; b <= v.size();) {
        size_t e = std::min(v.find(',', b), v.size());
        sizes.push_back(std::strtoull(v.substr(b, e - b).c_str(), nullptr, 10));
        b = e + 1;
      }
    } else if (a == "--reps") {
      reps = std::atoi(v.c_str());
    } else if (a == "--changes") {
      layouts = {v == "clustered"};
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  for (int types : {4, 200}) {
    Cost c = Measure(types, Step::kCreate);
    std::printf("branch create, %d types: %llu requests, %llu round trips (%s)\n", types, static_cast<ull>(c.requests),
                static_cast<ull>(c.rounds), c.detail.c_str());
  }
  for (int types : {4, 200}) {
    Cost b = Measure(types, Step::kFirstBranchWrite);
    Cost m = Measure(types, Step::kMainWrite);
    std::printf(
        "one-row write, %d types: first on a new branch %llu requests, %llu round trips (%s); on main %llu "
        "requests, %llu round trips (%s)\n",
        types, static_cast<ull>(b.requests), static_cast<ull>(b.rounds), b.detail.c_str(), static_cast<ull>(m.requests),
        static_cast<ull>(m.rounds), m.detail.c_str());
  }
  std::fflush(stdout);
  for (bool clustered : layouts) {
    for (uint64_t n : sizes) MergeSize(n, reps, clustered);
  }
  return 0;
}
