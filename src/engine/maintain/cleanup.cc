#include "engine/maintain/cleanup.h"

#include <algorithm>
#include <climits>
#include <set>

#include "common/clock.h"
#include "common/error_codes.h"
#include "common/thread_pool.h"
#include "common/ulid.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"
#include "engine/merge/merge.h"
#include "table/manifest.h"
#include "table/table_layout.h"

namespace omnigraph::engine {
namespace {

// The phases of a sweep, in deletion order: a manifest goes before the objects it names, so a
// crash mid-sweep never leaves a manifest pointing at deleted fragments.
enum class Phase { kManifests = 0, kData = 1, kCommits = 2 };

// What a listed key is, to the sweep. `table_id` is empty outside tables/ and derived/tables/.
struct KeyClass {
  std::string kind;  // empty: a key this code does not recognise (never deleted)
  Phase phase = Phase::kData;
  std::string table_id;
  int64_t age_ms = 0;                 // creation time from the ULIDs in the key (the newest one)
  std::vector<std::string> versions;  // derived objects: the table versions they belong to
};

std::optional<int64_t> UlidMs(std::string_view text) {
  auto u = Ulid::Parse(text);
  if (!u.ok()) return std::nullopt;
  return static_cast<int64_t>(u->timestamp_ms());
}

// tables/<tid>/<dir>/<name>, derived/tables/<tid>/{ordinals,csr}/<name>, commits/<id>.json.
KeyClass Classify(std::string_view key) {
  KeyClass k;
  auto split = [](std::string_view s) {
    std::vector<std::string_view> parts;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == '/') {
        parts.push_back(s.substr(start, i - start));
        start = i + 1;
      }
    }
    return parts;
  };
  std::vector<std::string_view> p = split(key);
  auto strip = [](std::string_view name, std::string_view ext) -> std::optional<std::string_view> {
    if (name.size() <= ext.size() || name.substr(name.size() - ext.size()) != ext) return std::nullopt;
    return name.substr(0, name.size() - ext.size());
  };
  if (p.size() == 2 && p[0] == "commits") {
    auto id = strip(p[1], ".json");
    auto ms = id ? UlidMs(*id) : std::nullopt;
    if (ms) k = KeyClass{"commit", Phase::kCommits, "", *ms, {}};
    return k;
  }
  if (p.size() >= 4 && p[0] == "tables") {
    const std::string tid(p[1]);
    std::optional<int64_t> ms;
    std::string kind;
    Phase phase = Phase::kData;
    auto dir = [&](std::string_view d) { return p[2] == d.substr(0, d.size() - 1); };  // "data/" -> "data"
    if (dir(table::kVersionsDir) && p.size() == 4) {
      ms = UlidMs(p[3]);
      kind = "manifest";
      phase = Phase::kManifests;
    } else if (dir(table::kDataDir) && p.size() == 4) {
      if (auto id = strip(p[3], ".ogf")) ms = UlidMs(*id);
      kind = "fragment";
    } else if (dir(table::kDeletionDir) && p.size() == 4) {
      if (auto id = strip(p[3], ".del")) ms = UlidMs(*id);
      kind = "deletion";
    } else if (dir(table::kBlobDir) && p.size() == 4) {
      if (auto id = strip(p[3], ".blob")) ms = UlidMs(*id);
      kind = "blob";
    } else if (dir(table::kIndexDir)) {  // idx/<ulid>/<file> or idx/<ulid>.<suffix>
      ms = UlidMs(p[3].substr(0, std::min<size_t>(p[3].size(), 26)));
      kind = "index";
    }
    if (ms) k = KeyClass{kind, phase, tid, *ms, {}};
    return k;
  }
  if (p.size() == 5 && p[0] == "derived" && p[1] == "tables") {
    const std::string tid(p[2]);
    if (p[3] == "ordinals") {
      auto v = strip(p[4], ".ogord");
      auto ms = v ? UlidMs(*v) : std::nullopt;
      if (ms) k = KeyClass{"derived", Phase::kData, tid, *ms, {std::string(*v)}};
    } else if (p[3] == "csr") {
      auto name = strip(p[4], ".ogcsr");
      if (!name || name->size() != 3 * 26 + 2 || (*name)[26] != '-' || (*name)[53] != '-') return k;
      KeyClass c{"derived", Phase::kData, tid, 0, {}};
      for (size_t i = 0; i < 3; ++i) {
        std::string_view v = name->substr(i * 27, 26);
        auto ms = UlidMs(v);
        if (!ms) return k;
        c.age_ms = std::max(c.age_ms, *ms);
        c.versions.emplace_back(v);
      }
      k = std::move(c);
    }
  }
  return k;
}

// The newest name (and kind) a table had in the commits read.
struct TableName {
  int64_t time_us = -1;
  std::string name;
  EntityKind kind = EntityKind::kNode;
};

struct Doomed {
  std::string key;
  uint64_t size = 0;
  KeyClass cls;
};

// What went (or, in a preview, would go): the first `done` of `doomed`.
void Tally(const std::vector<Doomed>& doomed, size_t done, const std::map<std::string, TableName>& table_names,
           GraphCleanup& out) {
  std::map<std::string, TableCleanup> tables;
  for (size_t i = 0; i < done; ++i) {
    const Doomed& d = doomed[i];
    auto& k = out.removed[d.cls.kind];
    k.objects++;
    k.bytes += d.size;
    if (d.cls.table_id.empty()) continue;
    TableCleanup& t = tables[d.cls.table_id];
    t.table_id = d.cls.table_id;
    auto name = table_names.find(d.cls.table_id);
    t.type_name = name != table_names.end() ? name->second.name : d.cls.table_id;
    if (name != table_names.end()) t.kind = name->second.kind;
    t.objects_removed++;
    t.bytes_removed += d.size;
    if (d.cls.kind == "manifest") t.versions_removed++;
  }
  for (auto& [id, t] : tables) out.tables.push_back(std::move(t));
  std::sort(out.tables.begin(), out.tables.end(),
            [](const TableCleanup& a, const TableCleanup& b) { return a.type_name < b.type_name; });
}

// For every kept commit with a parent outside `kept` (which this run removes), its nearest kept
// ancestors: what ancestry walks follow once the parent is gone (Graph::ParentIds). Each commit
// outside `kept` is read once (memoized), so the cost is the history since the previous run.
Result<std::map<std::string, std::vector<std::string>>> Grafts(Graph& graph, const std::set<std::string>& kept) {
  std::map<std::string, std::vector<std::string>> parents_of;  // walked commits, as ParentIds sees them
  auto parents = [&](const std::string& id) -> Result<const std::vector<std::string>*> {
    auto it = parents_of.find(id);
    if (it != parents_of.end()) return &it->second;
    std::vector<std::string> ps;
    auto c = graph.LoadReferencedCommit(id, "the history of a kept commit");
    if (c.ok()) {
      auto got = graph.ParentIds(**c);
      if (got.ok()) {
        ps = std::move(*got);
      } else if (got.status().code_string() != "history_reclaimed") {
        return got.status();
      }
    } else if (c.status().code_string() != "history_reclaimed") {
      return c.status();
    }
    return &parents_of.emplace(id, std::move(ps)).first->second;
  };
  std::map<std::string, std::set<std::string>> nearest;  // commits outside `kept` -> nearest kept ancestors
  auto resolve = [&](const std::string& start) -> Status {
    std::vector<std::pair<std::string, bool>> stack{{start, false}};
    while (!stack.empty()) {
      auto [id, expanded] = stack.back();
      stack.pop_back();
      if (nearest.contains(id)) continue;
      OG_ASSIGN_OR_RETURN(const std::vector<std::string>* ps, parents(id));
      if (!expanded) {
        stack.emplace_back(id, true);
        for (const auto& p : *ps) {
          if (!kept.contains(p) && !nearest.contains(p)) stack.emplace_back(p, false);
        }
        continue;
      }
      std::set<std::string> acc;
      for (const auto& p : *ps) {
        if (kept.contains(p)) {
          acc.insert(p);
        } else {
          const auto& up = nearest.at(p);
          acc.insert(up.begin(), up.end());
        }
      }
      nearest.emplace(id, std::move(acc));
    }
    return Status::Ok();
  };
  std::map<std::string, std::vector<std::string>> out;
  for (const std::string& id : kept) {
    OG_ASSIGN_OR_RETURN(const std::vector<std::string>* ps, parents(id));
    if (std::all_of(ps->begin(), ps->end(), [&](const std::string& p) { return kept.contains(p); })) continue;
    std::set<std::string> graft;
    for (const auto& p : *ps) {
      if (kept.contains(p)) {
        graft.insert(p);
        continue;
      }
      OG_RETURN_IF_ERROR(resolve(p));
      const auto& up = nearest.at(p);
      graft.insert(up.begin(), up.end());
    }
    out[id] = std::vector<std::string>(graft.begin(), graft.end());
  }
  return out;
}

}  // namespace

Result<GraphCleanup> CleanupGraph(Graph& graph, const CleanupPolicy& policy) {
  if (!policy.keep && !policy.older_than_us) {
    return InvalidArgumentError("cleanup requires at least one of --keep or --older-than");
  }
  if (policy.keep && *policy.keep == 0)
    return InvalidArgumentError("--keep must be at least 1 (the head is always kept)");
  if (policy.older_than_us && *policy.older_than_us < 0)
    return InvalidArgumentError("--older-than must not be negative");
  if (policy.grace_us < 0) return InvalidArgumentError("--grace must not be negative");
  if (graph.options().read_only) return PermissionDeniedError("the graph was opened read-only");

  io::ObjectStore& store = graph.store();
  RefLog refs(store);
  const int64_t started = NowMicros();
  OG_ASSIGN_OR_RETURN(std::vector<CleanupRecord> previous, CleanupRecords(store));

  // 1. One read of every ref log. Every published commit is named by some ref entry (a merge's
  // second parent by its own branch's), so `named` is the whole history; `kept` the retained part.
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, refs.AllBranches());
  std::set<std::string> named, kept, heads;
  // Per ref folder: the floor this run truncates the log to (entries below it go), when it rises.
  std::map<std::string, uint64_t> floors;
  for (const std::string& branch : branches) {
    OG_ASSIGN_OR_RETURN(std::vector<RefEntry> entries, refs.Entries(branch));
    for (const RefEntry& e : entries) {
      if (!e.commit_id.empty()) named.insert(e.commit_id);
    }
    if (entries.empty()) continue;
    // The head and its predecessor always stay (a head is read with its link); a deleted branch
    // keeps only those, a live one also every entry from its oldest kept one.
    uint64_t floor = entries.back().seq > 1 ? entries.back().seq - 1 : 1;
    if (entries.back().op != RefOp::kDelete) {
      const std::string& incarnation = entries.back().incarnation;
      heads.insert(entries.back().commit_id);
      uint64_t n = 0;
      int64_t superseded_us = INT64_MAX;  // when the entry after this one was made (it stopped being head)
      for (auto it = entries.rbegin(); it != entries.rend(); ++it, ++n) {
        if (it->op == RefOp::kDelete || it->incarnation != incarnation) break;
        // A commit that was the head within the grace period may be what an in-flight writer (or
        // merge) captured and is reading: kept, whatever the policy.
        const bool keep = superseded_us >= started - policy.grace_us || (policy.keep && n < *policy.keep) ||
                          (policy.older_than_us && it->time_us >= started - *policy.older_than_us);
        if (keep) {
          kept.insert(it->commit_id);
          floor = std::min(floor, it->seq);
        }
        superseded_us = it->time_us;
      }
    }
    OG_ASSIGN_OR_RETURN(uint64_t current, refs.Floor(branch));
    if (floor > std::max<uint64_t>(current, 1)) floors[RefFolder(branch)] = floor;
  }
  // Merge bases of every pair of live heads: a later merge diffs against them.
  for (auto a = heads.begin(); a != heads.end(); ++a) {
    for (auto b = std::next(a); b != heads.end(); ++b) {
      OG_ASSIGN_OR_RETURN(std::string base, MergeBase(graph, *a, *b));
      kept.insert(base);
    }
  }

  // 2. Mark what the kept commits reach.
  std::set<std::string> live;           // absolute keys
  std::set<std::string> live_versions;  // table version ids (derived objects follow them)
  std::set<std::string> read_manifests;
  std::map<std::string, TableName> table_names;  // table id -> (time, name)
  std::set<std::string> reclaimed_earlier;
  for (const std::string& commit_id : kept) {
    OG_ASSIGN_OR_RETURN(auto commit, graph.LoadReferencedCommit(commit_id, "a ref entry"));
    for (const auto& [name, ref] : commit->tables) {
      TableName& tn = table_names[ref.table_id];
      if (commit->timestamp_us >= tn.time_us) tn = TableName{commit->timestamp_us, name, ref.kind};
      const std::string prefix = TablePrefix(ref.table_id);
      const std::string key = table::AbsoluteKey(prefix, table::VersionKey(ref.version_id));
      if (!read_manifests.insert(key).second) continue;
      auto bytes = store.Get(key);
      if (!bytes.ok() && bytes.status().category() == StatusCode::kNotFound) {
        // An earlier cleanup took it (a branch was since created at that commit): nothing to keep.
        if (ReclaimingRecord(previous, *commit) != nullptr) {
          reclaimed_earlier.insert(commit_id);
          continue;
        }
        return MissingTableVersionError(store, *commit, name, key);
      }
      OG_RETURN_IF_ERROR(bytes.status());
      OG_ASSIGN_OR_RETURN(table::Manifest m, table::DecodeManifest(*bytes, key));
      live.insert(key);
      live_versions.insert(ref.version_id);
      for (const auto& f : m.fragments) {
        live.insert(table::AbsoluteKey(prefix, f.file_key));
        if (!f.deletion_key.empty()) live.insert(table::AbsoluteKey(prefix, f.deletion_key));
        for (const auto& b : f.blob_keys) live.insert(table::AbsoluteKey(prefix, b));
      }
      for (const auto& seg : m.indexes) {
        for (const auto& k : seg.keys) live.insert(table::AbsoluteKey(prefix, k));
      }
    }
  }
  // Commit objects stay for every kept commit (also one whose data an earlier run took: a branch
  // still names it), with the ancestry between them (grafts).
  const std::set<std::string> kept_objects = kept;
  for (const auto& c : reclaimed_earlier) kept.erase(c);
  OG_ASSIGN_OR_RETURN(auto grafts, Grafts(graph, kept_objects));

  // 3. Sweep candidates: everything listed that nothing kept reaches, once older than the grace.
  GraphCleanup out;
  out.confirmed = policy.confirm;
  out.kept_commits = kept.size();
  const int64_t young_after_ms = (started - policy.grace_us) / 1000;
  std::vector<Doomed> doomed;
  for (std::string_view prefix : {kTablesPrefix, kDerivedPrefix, kCommitsPrefix}) {
    OG_ASSIGN_OR_RETURN(auto listed, store.List(prefix));
    for (auto& meta : listed) {
      KeyClass cls = Classify(meta.key);
      if (cls.kind.empty()) continue;  // not ours to judge: never deleted
      bool reachable;
      if (cls.kind == "commit") {
        reachable = kept_objects.contains(meta.key.substr(kCommitsPrefix.size(), 26));
      } else if (cls.kind == "derived") {
        reachable = std::all_of(cls.versions.begin(), cls.versions.end(),
                                [&](const std::string& v) { return live_versions.contains(v); });
      } else {
        reachable = live.contains(meta.key);
      }
      if (reachable) {
        out.kept_objects++;
      } else if (cls.age_ms >= young_after_ms) {
        out.young_objects++;  // a writer may be about to publish it
      } else {
        doomed.push_back(Doomed{std::move(meta.key), meta.size, std::move(cls)});
      }
    }
  }
  // Ref entries and older floors below a branch's new floor: history by the floor written first.
  // (They were superseded before the grace period began: every entry that was a head since is kept.)
  if (!floors.empty()) {
    OG_ASSIGN_OR_RETURN(auto listed, store.List(kRefsPrefix));
    for (auto& meta : listed) {
      const size_t slash = meta.key.rfind('/');
      auto floor = floors.find(meta.key.substr(0, slash + 1));
      if (floor == floors.end()) continue;
      std::optional<uint64_t> seq = ParseRefSeq(meta.key);
      std::string kind = "ref_entry";
      if (!seq) {
        seq = ParseRefFloor(meta.key);
        kind = "ref_floor";
      }
      if (!seq || *seq >= floor->second) continue;
      doomed.push_back(Doomed{std::move(meta.key), meta.size, KeyClass{kind, Phase::kCommits, "", 0, {}}});
    }
  }
  for (const auto& c : named) out.unkept_commits += kept.contains(c) ? 0 : 1;

  if (!policy.confirm || doomed.empty()) {
    Tally(doomed, doomed.size(), table_names, out);
    return out;
  }

  // 4. The record first (readers classify missing data by it), then the deletes, phase by phase.
  CleanupRecord record;
  record.id = NewUlidString();
  record.started_us = started;
  record.grace_us = policy.grace_us;
  record.keep = policy.keep;
  record.older_than_us = policy.older_than_us;
  record.actor = graph.actor();
  record.kept_commits = kept;
  record.grafts = std::move(grafts);
  OG_RETURN_IF_ERROR(WriteCleanupRecord(store, record));
  out.record_id = record.id;
  // The floors before the entries below them go (a reader then ignores those, deleted or not).
  for (const auto& [folder, floor] : floors) {
    auto branch =
        BranchFromHex(std::string_view(folder).substr(kRefsPrefix.size(), folder.size() - kRefsPrefix.size() - 1));
    if (!branch) return InternalError("malformed ref folder " + folder);
    OG_RETURN_IF_ERROR(refs.WriteFloor(*branch, floor));
  }
  std::stable_sort(doomed.begin(), doomed.end(),
                   [](const Doomed& a, const Doomed& b) { return a.cls.phase < b.cls.phase; });
  ThreadPool pool(8);
  size_t done = 0;
  constexpr size_t kChunk = 256;
  for (size_t begin = 0; begin < doomed.size();) {
    // Never delete once a writer that started when the refs were read could still publish.
    // (A zero grace declares that no writer runs: no limit.)
    if (policy.grace_us > 0 && NowMicros() - started > policy.grace_us / 2) {
      out.completed = false;
      break;
    }
    // A chunk never spans two phases: every manifest is gone before any object it names.
    size_t end = std::min(doomed.size(), begin + kChunk);
    while (end > begin + 1 && doomed[end - 1].cls.phase != doomed[begin].cls.phase) --end;
    OG_RETURN_IF_ERROR(pool.ParallelFor(end - begin, [&](size_t i) { return store.Delete(doomed[begin + i].key); }));
    begin = done = end;
  }
  graph.ForgetCachedCommits();
  Tally(doomed, done, table_names, out);
  return out;
}

}  // namespace omnigraph::engine
