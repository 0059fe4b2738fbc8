#include "e2e_runner.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "compiler/params.h"
#include "compiler/type_checker.h"
#include "engine/diff/change_feed.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "engine/maintain/schema_apply.h"
#include "engine/maintain/search_indexes.h"
#include "engine/merge/merge.h"
#include "engine/mutate/mutation.h"
#include "io/disk_cache_store.h"
#include "io/fault_store.h"
#include "io/local_store.h"

namespace omnigraph::e2e {
namespace {

bool IsUlidChar(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z'); }

// Replaces 26-character ULIDs (generated ids) with <ulid> so runs compare equal.
std::string MaskUlids(std::string s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t j = i;
    while (j < s.size() && IsUlidChar(s[j])) ++j;
    bool bounded = (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))) &&
                   (j == s.size() || !std::isalnum(static_cast<unsigned char>(s[j])));
    if (j - i == 26 && bounded) {
      out += "<ulid>";
      i = j;
    } else if (j > i) {
      out.append(s, i, j - i);
      i = j;
    } else {
      out += s[i++];
    }
  }
  return out;
}

Result<std::string> Body(const TestFile& file, const Record& r, size_t file_word) {
  if (r.words.size() > file_word && r.words[file_word] == "file") {
    if (r.words.size() <= file_word + 1) return InvalidArgumentError("`file` needs a path");
    std::ifstream in(file.dir + "/" + r.words[file_word + 1]);
    if (!in) return NotFoundError("cannot read " + r.words[file_word + 1]);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  return r.body;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// `... error CODE [line N]` at position `at` of the words.
Expectation ParseExpectation(const Record& r, size_t at) {
  Expectation e;
  if (r.words.size() > at && r.words[at] == "error") {
    e.error = true;
    if (r.words.size() > at + 1) e.code = r.words[at + 1];
    if (r.words.size() > at + 3 && r.words[at + 2] == "line") e.line = std::stoull(r.words[at + 3]);
  }
  return e;
}

Status CheckOutcome(const Status& s, const Expectation& e) {
  if (!e.error) return s;
  if (s.ok()) return InvalidArgumentError("expected error " + e.code + ", but it succeeded");
  if (s.code_string() != e.code) {
    return InvalidArgumentError("expected error " + e.code + ", got " + s.ToString());
  }
  if (e.line) {
    uint32_t got = s.span() ? s.span()->line : 0;
    if (got != *e.line) {
      return InvalidArgumentError("expected the error on line " + std::to_string(*e.line) + ", got " + s.ToString());
    }
  }
  return Status::Ok();
}

// The position after `load MODE [branch B [from A]]`.
size_t LoadOptionsEnd(const Record& r) {
  if (r.words.size() <= 3 || r.words[2] != "branch") return 2;
  return r.words.size() > 5 && r.words[4] == "from" ? 6 : 4;
}

}  // namespace

// `mutate [branch B] [if-commit LABEL] [params {JSON}] [error CODE]` (JSON may hold spaces).
Result<MutateSpec> ParseMutate(const Record& r) {
  MutateSpec spec;
  std::string_view rest = std::string_view(r.directive).substr(std::string_view("mutate").size());
  auto word = [&]() {
    size_t b = rest.find_first_not_of(' ');
    if (b == std::string_view::npos) b = rest.size();
    rest.remove_prefix(b);
    size_t e = std::min(rest.find(' '), rest.size());
    std::string w(rest.substr(0, e));
    rest.remove_prefix(e);
    return w;
  };
  for (std::string w = word(); !w.empty(); w = word()) {
    if (w == "branch" || w == "if-commit") {
      std::string v = word();
      if (v.empty()) return InvalidArgumentError("`" + w + "` needs a value");
      if (w == "branch") {
        spec.branch = v;
      } else {
        spec.if_commit_label = v;
      }
    } else if (w == "params") {
      size_t b = rest.find_first_not_of(' ');
      if (b == std::string_view::npos || rest[b] != '{') return InvalidArgumentError("`params` needs a JSON object");
      int depth = 0;
      bool in_string = false;
      size_t e = b;
      for (; e < rest.size(); ++e) {
        char c = rest[e];
        if (in_string) {
          if (c == '\\')
            ++e;
          else if (c == '"')
            in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '{') {
          ++depth;
        } else if (c == '}' && --depth == 0) {
          break;
        }
      }
      if (e >= rest.size()) return InvalidArgumentError("unbalanced `params` JSON");
      spec.params = std::string(rest.substr(b, e + 1 - b));
      rest.remove_prefix(e + 1);
    } else if (w == "error") {
      spec.expect.error = true;
      spec.expect.code = word();
    } else {
      return InvalidArgumentError("unknown mutate option '" + w + "'");
    }
  }
  return spec;
}

Result<Config> ParseConfig(std::string_view name) {
  if (name == "memory") return Config::kMemory;
  if (name == "local") return Config::kLocal;
  if (name == "restart-each") return Config::kRestartEach;
  if (name == "fault-sweep") return Config::kFaultSweep;
  if (name == "s3") return Config::kS3;
  if (name == "s3-faults") return Config::kS3Faults;
  if (name == "s3-crash-sweep") return Config::kS3CrashSweep;
  return InvalidArgumentError("unknown configuration '" + std::string(name) + "'");
}

std::shared_ptr<io::MemoryStore> CloneStore(io::MemoryStore& from) {
  auto to = std::make_shared<io::MemoryStore>();
  auto all = from.List("");
  OG_CHECK(all.ok());
  for (const auto& m : *all) OG_CHECK(to->Put(m.key, *from.Get(m.key)).ok());
  return to;
}

std::string Fingerprint(std::shared_ptr<io::ObjectStore> store) {
  auto g = engine::Graph::Open(store);
  if (!g.ok())
    return g.status().category() == StatusCode::kNotFound ? "<no graph>" : "<error " + g.status().ToString() + ">";
  auto branches = (*g)->Branches();
  if (!branches.ok()) return "<error " + branches.status().ToString() + ">";
  std::string out;
  for (const auto& b : *branches) {  // every live branch: its rows and its history length
    auto snap = (*g)->Head(b);
    if (!snap.ok()) return "<error " + snap.status().ToString() + ">";
    out += "branch " + b + "\n";
    Status s = engine::ExportNdjson(*snap, {}, [&](std::string_view l) {
      out += MaskUlids(std::string(l)) + "\n";
      return Status::Ok();
    });
    if (!s.ok()) return "<error " + s.ToString() + ">";
    auto log = (*g)->CommitLog(b);
    out += "commits " + std::to_string(log.ok() ? log->size() : 0) + "\n";
  }
  return out;
}

Status Runner::SetUp() {
  if (config_ == Config::kLocal) {
    local_dir_ = (std::filesystem::temp_directory_path() / ("og-e2e-" + NewUlidString())).string();
    io::LocalStoreOptions o;
    o.create_root = true;
    o.fsync = false;
    OG_ASSIGN_OR_RETURN(auto s, io::LocalStore::Open(local_dir_, o));
    store_ = std::shared_ptr<io::ObjectStore>(std::move(s));
  } else if (config_ == Config::kS3 || config_ == Config::kS3Faults || config_ == Config::kS3CrashSweep) {
    // A real S3 server in this process; s3-faults makes it answer some requests with 503
    // SlowDown, 500, a reset connection, 409 ConditionalRequestConflict, a write whose answer is lost
    // or a body cut short, which the client must retry without changing any outcome.
    std::vector<std::string> faults;
    if (config_ == Config::kS3Faults) faults = {"slowdown=23,error500=29,reset=19,conflict=13,lost=7,truncate=11"};
    OG_ASSIGN_OR_RETURN(s3_, s3server::TestS3::Start(faults));
    // About a third of the attempts fail, and parallel uploads make which ones vary from run to
    // run, so a request gets enough attempts never to run out (0.35^24 ~ 1e-11); giving up after
    // the retries is tested on its own (s3_backend_test).
    io::s3::S3Config config = s3_->Config();
    config.retry.max_attempts = 24;
    OG_ASSIGN_OR_RETURN(auto s,
                        io::s3::S3Store::Open(config, s3server::TestS3::kBucket, s3server::TestS3::NewPrefix()));
    store_ = std::shared_ptr<io::ObjectStore>(std::move(s));
    if (config_ == Config::kS3) {
      // Through a disk cache, as `--cache-dir` runs: every record opens a fresh handle (a new
      // process, cold in memory) that finds what earlier ones cached; cleanup cases check that a
      // reclaimed version still reads as reclaimed.
      local_dir_ = (std::filesystem::temp_directory_path() / ("og-e2e-cache-" + NewUlidString())).string();
      io::DiskCacheOptions o;
      o.dir = local_dir_;
      o.cacheable = engine::IsDiskCacheableKey;
      OG_ASSIGN_OR_RETURN(store_, io::DiskCacheStore::Open(store_, std::move(o)));
    }
  } else {
    memory_ = std::make_shared<io::MemoryStore>();
    store_ = memory_;
  }
  return Status::Ok();
}

bool Runner::CountsObjects() const { return memory_ != nullptr || s3_ != nullptr; }

uint64_t Runner::ObjectCount() const {
  if (memory_ != nullptr) return memory_->object_count();
  if (s3_ != nullptr) {
    auto all = store_->List("");
    return all.ok() ? all->size() : UINT64_MAX;
  }
  return 0;
}

Status Runner::Reopen() {
  OG_ASSIGN_OR_RETURN(graph_, engine::Graph::Open(store_));
  return Status::Ok();
}

Status Runner::Fail(const Record& r, const std::string& what) {
  report_.failures++;
  report_.messages.push_back("line " + std::to_string(r.line) + " `" + r.directive + "`: " + what);
  return Status::Ok();
}

// Runs a write record against `store` (a fresh Graph handle each time).
Status Runner::RunWrite(const TestFile& file, const Record& r, io::ObjectStore& store, bool* committed) {
  std::shared_ptr<io::ObjectStore> shared(&store, [](io::ObjectStore*) {});
  *committed = false;
  if (r.words[0] == "schema") {
    OG_ASSIGN_OR_RETURN(std::string src, Body(file, r, 1));
    auto g = engine::Graph::Init(shared, src);
    OG_RETURN_IF_ERROR(g.status());
    *committed = true;
    return Status::Ok();
  }
  if (r.words[0] == "mutate") {
    OG_ASSIGN_OR_RETURN(MutateSpec spec, ParseMutate(r));
    engine::MutationOptions o;
    o.branch = spec.branch;
    o.now_ms = 0;  // as `run`: reruns (restart, fault sweep) must write the same values
    if (spec.if_commit_label) {
      auto it = labels_.find(*spec.if_commit_label);
      if (it == labels_.end()) return NotFoundError("unknown snapshot label " + *spec.if_commit_label);
      o.if_commit = it->second;
    }
    OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
    OG_ASSIGN_OR_RETURN(engine::MutationResult res,
                        engine::RunMutation(*g, r.body, spec.params ? *spec.params : params_, o));
    *committed = res.write.committed;
    mutation_output_ = res.write.committed ? "affected_nodes " + std::to_string(res.affected_nodes) +
                                                 " affected_edges " + std::to_string(res.affected_edges)
                                           : "no change";
    return Status::Ok();
  }
  if (r.words[0] == "index") {  // index [branch B]: optimize's search-index step (one commit)
    OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
    const std::string branch = r.words.size() > 2 && r.words[1] == "branch" ? r.words[2] : "main";
    OG_ASSIGN_OR_RETURN(engine::SearchIndexBuild res, engine::BuildSearchIndexes(*g, branch));
    *committed = res.write.committed;
    return Status::Ok();
  }
  if (r.words[0] == "branch") {  // branch create NAME [from B] | branch delete NAME
    if (r.words.size() < 3) return InvalidArgumentError("branch needs create|delete and a name");
    OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
    if (r.words[1] == "create") {
      std::string from = r.words.size() > 4 && r.words[3] == "from" ? r.words[4] : "main";
      OG_RETURN_IF_ERROR(g->CreateBranch(r.words[2], from).status());
    } else if (r.words[1] == "delete") {
      OG_RETURN_IF_ERROR(g->DeleteBranch(r.words[2]).status());
    } else {
      return InvalidArgumentError("branch " + r.words[1] + ": use create or delete");
    }
    *committed = true;
    return Status::Ok();
  }
  if (r.words[0] == "merge") {  // merge SOURCE [into T] [delete-branch] [error CODE]
    if (r.words.size() < 2) return InvalidArgumentError("merge needs a source branch");
    engine::MergeOptions o;
    o.source = r.words[1];
    for (size_t i = 2; i < r.words.size(); ++i) {
      if (r.words[i] == "into" && i + 1 < r.words.size())
        o.target = r.words[++i];
      else if (r.words[i] == "delete-branch")
        o.delete_source = true;
      else if (r.words[i] == "error")
        break;
    }
    OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
    auto res = engine::MergeBranches(*g, o);
    if (!res.ok()) {
      mutation_output_.clear();
      auto d = ParseJson(res.status().details(), "merge conflicts");
      if (d.ok() && d->contains("merge_conflicts")) {
        for (const auto& c : (*d)["merge_conflicts"]) {
          mutation_output_ += (mutation_output_.empty() ? "" : "\n") + c["kind"].get<std::string>() + " " +
                              c["entity_kind"].get<std::string>() + " " + c["type_name"].get<std::string>() + " " +
                              MaskUlids(c["entity_id"].get<std::string>());
        }
      }
      return res.status();
    }
    *committed = res->outcome != engine::MergeOutcome::kAlreadyUpToDate || res->branch_deleted;
    mutation_output_ = std::string(engine::MergeOutcomeName(res->outcome));
    for (const auto& [name, n] : res->summary) {
      mutation_output_ += " " + name + " +" + std::to_string(n.inserted) + " ~" + std::to_string(n.updated) + " -" +
                          std::to_string(n.deleted);
    }
    return Status::Ok();
  }
  if (r.words[0] == "migrate") {  // migrate [branch B] [allow-data-loss] [error CODE]; body: the new .pg
    engine::SchemaApplyOptions o;
    for (size_t i = 1; i < r.words.size(); ++i) {
      if (r.words[i] == "branch" && i + 1 < r.words.size())
        o.branch = r.words[++i];
      else if (r.words[i] == "allow-data-loss")
        o.allow_data_loss = true;
      else if (r.words[i] == "error")
        break;
    }
    OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
    OG_ASSIGN_OR_RETURN(engine::SchemaApplyResult res, engine::ApplySchema(*g, r.body, o));
    *committed = res.write.committed;
    return Status::Ok();
  }
  // load MODE [branch B [from A]] ...
  if (r.words.size() < 2) return InvalidArgumentError("load needs a mode");
  OG_ASSIGN_OR_RETURN(LoadMode mode, ParseLoadMode(r.words[1]));
  engine::LoadOptions o;
  o.mode = mode;
  if (r.words.size() > 3 && r.words[2] == "branch") o.branch = r.words[3];
  if (r.words.size() > 5 && r.words[2] == "branch" && r.words[4] == "from") o.create_branch_from = r.words[5];
  OG_ASSIGN_OR_RETURN(std::string data, Body(file, r, LoadOptionsEnd(r)));
  OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
  OG_ASSIGN_OR_RETURN(engine::LoadResult res, engine::LoadNdjson(*g, data, o));
  *committed = res.write.committed;
  return Status::Ok();
}

Result<std::shared_ptr<io::ObjectStore>> Runner::CloneCurrent() {
  if (memory_ != nullptr) return std::shared_ptr<io::ObjectStore>(CloneStore(*memory_));
  // S3: every object copied to a fresh prefix of the same bucket.
  OG_ASSIGN_OR_RETURN(auto to,
                      io::s3::S3Store::Open(s3_->Config(), s3server::TestS3::kBucket, s3server::TestS3::NewPrefix()));
  OG_ASSIGN_OR_RETURN(auto all, store_->List(""));
  for (const auto& m : all) {
    OG_ASSIGN_OR_RETURN(std::string bytes, store_->Get(m.key));
    OG_RETURN_IF_ERROR(to->Put(m.key, bytes));
  }
  return std::shared_ptr<io::ObjectStore>(std::move(to));
}

Status Runner::Sweep(const TestFile& file, const Record& r) {
  std::string before = Fingerprint(store_);
  OG_ASSIGN_OR_RETURN(auto dry, CloneCurrent());
  auto counting = std::make_shared<io::FaultStore>(dry);
  bool committed = false;
  OG_RETURN_IF_ERROR(RunWrite(file, r, *counting, &committed));
  uint64_t n = counting->requests();
  std::string after = Fingerprint(dry);
  // `merge S ... delete-branch` has two commit points: the target moves, then S is deleted. A
  // crash between them legitimately leaves "merged, S still present" (the merge stands); from
  // there a plain `branch delete S` must reach the after state.
  std::optional<std::string> merged_only;
  std::string merged_source;
  if (r.words[0] == "merge" && std::find(r.words.begin(), r.words.end(), "delete-branch") != r.words.end()) {
    Record plain = r;
    plain.words.erase(std::remove(plain.words.begin(), plain.words.end(), "delete-branch"), plain.words.end());
    OG_ASSIGN_OR_RETURN(auto mid, CloneCurrent());
    bool c = false;
    OG_RETURN_IF_ERROR(RunWrite(file, plain, *mid, &c));
    merged_only = Fingerprint(mid);
    merged_source = r.words[1];
  }
  for (uint64_t k = 1; k <= n; ++k) {
    for (io::FaultAction action : {io::FaultAction::kCrashBefore, io::FaultAction::kCrashAfter}) {
      OG_ASSIGN_OR_RETURN(auto copy, CloneCurrent());
      auto faulty = std::make_shared<io::FaultStore>(copy);
      faulty->FailAt(k, action);
      bool c = false;
      Status s = RunWrite(file, r, *faulty, &c);
      report_.fault_runs++;
      std::string state = Fingerprint(copy);
      std::string where = "crash " + std::string(action == io::FaultAction::kCrashBefore ? "before" : "after") +
                          " request " + std::to_string(k) + " of " + std::to_string(n);
      if (merged_only && state == *merged_only && state != before && state != after) {
        Record del;
        del.line = r.line;
        del.directive = "branch delete " + merged_source;
        del.words = {"branch", "delete", merged_source};
        bool d = false;
        Status retry = RunWrite(file, del, *copy, &d);
        if (!retry.ok()) {
          return InternalError(where +
                               ": merged with the source left in place; deleting it failed: " + retry.ToString());
        }
        if (Fingerprint(copy) != after) {
          return InternalError(where +
                               ": merged with the source left in place; deleting it did not produce the after state");
        }
        continue;
      }
      if (state != before && state != after) {
        return InternalError(where + ": the graph is neither the before nor the after state:\n" + state);
      }
      if (s.ok() && state != after) {
        return InternalError(where + ": the write reported success but its change is not visible");
      }
      if (state == before) {
        bool again = false;
        Status retry = RunWrite(file, r, *copy, &again);
        if (!retry.ok()) return InternalError(where + ": retrying from the before state failed: " + retry.ToString());
        if (Fingerprint(copy) != after) return InternalError(where + ": the retry did not produce the after state");
      }
    }
  }
  return Status::Ok();
}

std::string CellText(const Value& v) {
  if (v.is_null()) return "NULL";
  if (v.kind() == TypeKind::kString) return v.string_value();
  return v.ToString();
}

std::vector<std::string> RowLines(const engine::QueryResult& res, bool ordered) {
  std::vector<std::string> out;
  for (const auto& row : res.rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "\t" : "") + CellText(row[c]);
    out.push_back(line);
  }
  if (!ordered) std::sort(out.begin(), out.end());
  return out;
}

// Runs a read query on the executor and on the reference evaluator; they must agree (the same
// error code, or the same rows: in order when `ordered`, else as multisets). Returns the
// executor's rows (sorted unless `ordered`) or its error.
Result<std::vector<std::string>> ExecuteBoth(const engine::Snapshot& snap, const compiler::IrQuery& q,
                                             const compiler::ParamValues& params, bool ordered) {
  auto got = engine::ExecuteQuery(snap, q, params, 0);
  auto want = engine::EvaluateReference(snap, q, params, 0);
  if (got.ok() != want.ok() || (!got.ok() && got.status().code_string() != want.status().code_string())) {
    return InternalError("the executor and the reference evaluator disagree.\nexecutor: " +
                         (got.ok() ? std::string("ok") : got.status().ToString()) +
                         "\nreference: " + (want.ok() ? std::string("ok") : want.status().ToString()));
  }
  if (!got.ok()) return got.status();
  std::vector<std::string> out = RowLines(*got, ordered), ref = RowLines(*want, ordered);
  if (out != ref || got->columns != want->columns) {
    return InternalError("the executor and the reference evaluator disagree.\nexecutor:\n" + Join(out) +
                         "reference:\n" + Join(ref));
  }
  return out;
}

Result<std::vector<std::string>> Runner::RunQuery(const Record& r) {
  if (graph_ == nullptr) return InvalidArgumentError("no graph yet (add a `schema` record first)");
  std::string branch = "main";
  for (size_t i = 0; i + 1 < r.words.size(); ++i) {
    if (r.words[i] == "on") branch = r.words[i + 1];
  }
  std::optional<engine::Snapshot> at;  // `run at LABEL`: the labelled commit, compiled against its schema
  if (r.words.size() >= 3 && r.words[1] == "at") {
    auto it = labels_.find(r.words[2]);
    if (it == labels_.end()) return NotFoundError("unknown snapshot label " + r.words[2]);
    OG_ASSIGN_OR_RETURN(engine::Snapshot s, graph_->AtCommit(it->second));
    at = std::move(s);
  }
  OG_ASSIGN_OR_RETURN(engine::Snapshot snap, at ? Result<engine::Snapshot>(*at) : graph_->Head(branch));
  OG_ASSIGN_OR_RETURN(auto queries, compiler::CompileQueries(snap.catalog(), r.body));
  if (queries.empty()) return InvalidArgumentError("no query in the record");
  const compiler::IrQuery& q = queries.front();
  OG_ASSIGN_OR_RETURN(auto bound, compiler::BindParamsJson(q.params, params_));
  params_.clear();
  return ExecuteBoth(snap, q, bound, std::find(r.words.begin(), r.words.end(), "ordered") != r.words.end());
}

Result<std::vector<std::string>> Runner::Query(const Record& r) {
  const std::string& d = r.words[0];
  std::vector<std::string> out;
  if (graph_ == nullptr) return InvalidArgumentError("no graph yet (add a `schema` record first)");
  std::string branch = "main";
  std::vector<std::string> words;  // without `on BRANCH`
  for (size_t i = 0; i < r.words.size(); ++i) {
    if (r.words[i] == "on" && i + 1 < r.words.size())
      branch = r.words[++i];
    else
      words.push_back(r.words[i]);
  }
  auto snap_or = [&]() -> Result<engine::Snapshot> {
    if (words.size() >= 3 && words[1] == "at") {
      auto it = labels_.find(words[2]);
      if (it == labels_.end()) return NotFoundError("unknown snapshot label " + words[2]);
      return graph_->AtCommit(it->second);
    }
    return graph_->Head(branch);
  }();
  OG_RETURN_IF_ERROR(snap_or.status());
  const engine::Snapshot& snap = *snap_or;
  if (d == "counts") {
    OG_ASSIGN_OR_RETURN(auto counts, snap.RowCounts());
    for (const auto& [name, n] : counts) out.push_back(name + "\t" + std::to_string(n));
  } else if (d == "export") {
    std::vector<std::string> types;
    for (size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "at") break;
      types.push_back(words[i]);
    }
    OG_RETURN_IF_ERROR(engine::ExportNdjson(snap, types, [&](std::string_view l) {
      // sorted keys, so expected lines need not follow the export's key order (cli tests check it)
      auto j = ParseJson(l, "export line");
      out.push_back(MaskUlids(j.ok() ? CanonicalJson(*j) : std::string(l)));
      return Status::Ok();
    }));
  } else if (d == "commits") {
    OG_ASSIGN_OR_RETURN(auto log, graph_->CommitLog(branch));
    for (const auto& c : log) {
      std::string line = c->operation;
      for (const auto& [name, n] : c->summary) {
        line += "\t" + name + " +" + std::to_string(n.inserted) + " ~" + std::to_string(n.updated) + " -" +
                std::to_string(n.deleted);
      }
      out.push_back(line);
    }
  } else if (d == "changes") {  // the changes of the snapshot's commit against its first parent
    OG_ASSIGN_OR_RETURN(engine::ChangeBlock b, engine::CommitChanges(*graph_, snap.commit().id));
    for (const auto& c : b.changes) {
      Json j = engine::ChangeToJson(snap.catalog(), c);
      std::string line = std::string(engine::ChangeOpName(c.op)) + "\t" + c.type_name + "\t" + MaskUlids(c.id);
      if (j.contains("before")) line += "\tbefore=" + MaskUlids(CanonicalJson(j["before"]));
      if (j.contains("after")) line += "\tafter=" + MaskUlids(CanonicalJson(j["after"]));
      out.push_back(line);
    }
  }
  return out;
}

Status Runner::RunRecord(TestFile& file, Record& r) {
  if (r.words.empty()) return Status::Ok();
  const std::string& d = r.words[0];
  if (d == "schema" || d == "load") {
    Expectation e = ParseExpectation(r, d == "schema" ? 1 : LoadOptionsEnd(r));
    uint64_t objects_before = ObjectCount();
    if (Sweeps() && !e.error) {
      Status s = Sweep(file, r);
      if (!s.ok()) return Fail(r, s.message());
    }
    bool committed = false;
    Status s = RunWrite(file, r, *store_, &committed);
    Status outcome = CheckOutcome(s, e);
    if (!outcome.ok()) return Fail(r, outcome.message());
    if (e.error && CountsObjects() && ObjectCount() != objects_before) {
      return Fail(r, "a rejected write left objects behind");
    }
    if (d == "schema" && !e.error) OG_RETURN_IF_ERROR(Reopen());
  } else if (d == "mutate") {
    auto spec = ParseMutate(r);
    if (!spec.ok()) return Fail(r, spec.status().message());
    uint64_t objects_before = ObjectCount();
    if (Sweeps() && !spec->expect.error) {
      Status s = Sweep(file, r);
      if (!s.ok()) return Fail(r, s.message());
    }
    bool committed = false;
    mutation_output_.clear();
    Status s = RunWrite(file, r, *store_, &committed);
    params_.clear();
    Status outcome = CheckOutcome(s, spec->expect);
    if (!outcome.ok()) return Fail(r, outcome.message());
    if (spec->expect.error) {
      if (CountsObjects() && ObjectCount() != objects_before) return Fail(r, "a rejected write left objects behind");
    } else if (!r.expected) {
      if (!rewrite_) return Fail(r, "no expected output (run with --rewrite to fill it in):\n" + mutation_output_);
      r.expected = std::vector<std::string>{mutation_output_};
    } else if (*r.expected != std::vector<std::string>{mutation_output_}) {
      return Fail(r, "output differs.\nexpected:\n" + Join(*r.expected) + "got:\n" + mutation_output_ + "\n");
    }
  } else if (d == "branch" || d == "merge" || d == "migrate" || d == "index") {
    Expectation e;
    for (size_t i = 1; i + 1 < r.words.size(); ++i) {
      if (r.words[i] == "error") {
        e = ParseExpectation(r, i);
        break;
      }
    }
    uint64_t objects_before = ObjectCount();
    if (Sweeps() && !e.error) {
      Status s = Sweep(file, r);
      if (!s.ok()) return Fail(r, s.message());
    }
    bool committed = false;
    mutation_output_.clear();
    Status s = RunWrite(file, r, *store_, &committed);
    Status outcome = CheckOutcome(s, e);
    if (!outcome.ok()) return Fail(r, outcome.message());
    if (e.error && CountsObjects() && ObjectCount() != objects_before) {
      return Fail(r, "a rejected write left objects behind");
    }
    if (d == "merge") {
      std::vector<std::string> got;
      std::istringstream lines(mutation_output_);
      for (std::string l; std::getline(lines, l);) got.push_back(l);
      if (!r.expected) {
        if (!rewrite_) return Fail(r, "no expected output (run with --rewrite to fill it in):\n" + Join(got));
        r.expected = got;
      } else if (*r.expected != got) {
        return Fail(r, "output differs.\nexpected:\n" + Join(*r.expected) + "got:\n" + Join(got));
      }
    }
  } else if (d == "counts" || d == "export" || d == "commits" || d == "changes") {
    auto got = Query(r);
    if (!got.ok()) return Fail(r, got.status().ToString());
    if (!r.expected) {
      if (rewrite_) {
        r.expected = *got;
        return Status::Ok();
      }
      return Fail(r, "no expected output (run with --rewrite to fill it in):\n" + Join(*got));
    }
    if (*got != *r.expected) {
      return Fail(r, "output differs.\nexpected:\n" + Join(*r.expected) + "got:\n" + Join(*got));
    }
  } else if (d == "params") {
    params_ = r.directive.substr(std::string("params").size());
  } else if (d == "run") {
    Expectation e = ParseExpectation(r, 1);
    auto got = RunQuery(r);
    if (e.error) {
      Status outcome = CheckOutcome(got.status(), e);
      if (!outcome.ok()) return Fail(r, outcome.message());
      return Status::Ok();
    }
    if (!got.ok()) return Fail(r, got.status().ToString());
    if (!r.expected) {
      if (rewrite_) {
        r.expected = *got;
        return Status::Ok();
      }
      return Fail(r, "no expected output (run with --rewrite to fill it in):\n" + Join(*got));
    }
    std::vector<std::string> want = *r.expected;
    bool ordered = std::find(r.words.begin(), r.words.end(), "ordered") != r.words.end();
    if (!ordered) std::sort(want.begin(), want.end());
    if (*got != want) return Fail(r, "rows differ.\nexpected:\n" + Join(want) + "got:\n" + Join(*got));
  } else if (d == "snapshot") {
    if (r.words.size() < 2) return Fail(r, "snapshot needs a label");
    auto head = graph_->Head(r.words.size() > 3 && r.words[2] == "on" ? r.words[3] : "main");
    if (!head.ok()) return Fail(r, head.status().ToString());
    labels_[r.words[1]] = head->commit().id;
  } else if (d == "restart") {
    OG_RETURN_IF_ERROR(Reopen());
  } else {
    return Fail(r, "unknown or not yet supported directive '" + d + "'");
  }
  if (config_ == Config::kRestartEach && graph_ != nullptr) OG_RETURN_IF_ERROR(Reopen());
  return Status::Ok();
}

RunReport Runner::Run(TestFile& file) {
  Status s = SetUp();
  if (!s.ok()) {
    report_.failures++;
    report_.messages.push_back("setup: " + s.ToString());
    return report_;
  }
  for (Record& r : file.records) {
    report_.records++;
    Status rs = RunRecord(file, r);
    if (!rs.ok()) {
      report_.failures++;
      report_.messages.push_back("line " + std::to_string(r.line) + ": " + rs.ToString());
    }
  }
  if (!local_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(local_dir_, ec);
  }
  return report_;
}

}  // namespace omnigraph::e2e
