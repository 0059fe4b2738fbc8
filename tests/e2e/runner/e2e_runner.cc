#include "e2e_runner.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error_codes.h"
#include "common/ulid.h"
#include "engine/exporter.h"
#include "compiler/params.h"
#include "compiler/type_checker.h"
#include "engine/loader.h"
#include "engine/reference_eval.h"
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
struct Expectation {
  bool error = false;
  std::string code;
  std::optional<uint64_t> line;
};
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

}  // namespace

Result<Config> ParseConfig(std::string_view name) {
  if (name == "memory") return Config::kMemory;
  if (name == "local") return Config::kLocal;
  if (name == "restart-each") return Config::kRestartEach;
  if (name == "fault-sweep") return Config::kFaultSweep;
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
  if (!g.ok()) return g.status().category() == StatusCode::kNotFound ? "<no graph>" : "<error " + g.status().ToString() + ">";
  auto snap = (*g)->Head();
  if (!snap.ok()) return "<error " + snap.status().ToString() + ">";
  std::string out;
  Status s = engine::ExportNdjson(*snap, {}, [&](std::string_view l) {
    out += MaskUlids(std::string(l)) + "\n";
    return Status::Ok();
  });
  if (!s.ok()) return "<error " + s.ToString() + ">";
  auto log = (*g)->CommitLog("main");
  out += "commits " + std::to_string(log.ok() ? log->size() : 0) + "\n";
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
  } else {
    memory_ = std::make_shared<io::MemoryStore>();
    store_ = memory_;
  }
  return Status::Ok();
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
  // load MODE [branch B] ...
  if (r.words.size() < 2) return InvalidArgumentError("load needs a mode");
  OG_ASSIGN_OR_RETURN(engine::LoadMode mode, engine::ParseLoadMode(r.words[1]));
  engine::LoadOptions o;
  o.mode = mode;
  size_t at = 2;
  if (r.words.size() > 3 && r.words[2] == "branch") {
    o.branch = r.words[3];
    at = 4;
  }
  OG_ASSIGN_OR_RETURN(std::string data, Body(file, r, at));
  OG_ASSIGN_OR_RETURN(auto g, engine::Graph::Open(shared));
  OG_ASSIGN_OR_RETURN(engine::LoadResult res, engine::LoadNdjson(*g, data, o));
  *committed = res.write.committed;
  return Status::Ok();
}

Status Runner::Sweep(const TestFile& file, const Record& r) {
  std::string before = Fingerprint(memory_);
  auto dry = CloneStore(*memory_);
  auto counting = std::make_shared<io::FaultStore>(dry);
  bool committed = false;
  OG_RETURN_IF_ERROR(RunWrite(file, r, *counting, &committed));
  uint64_t n = counting->requests();
  std::string after = Fingerprint(dry);
  for (uint64_t k = 1; k <= n; ++k) {
    for (io::FaultAction action : {io::FaultAction::kCrashBefore, io::FaultAction::kCrashAfter}) {
      auto copy = CloneStore(*memory_);
      auto faulty = std::make_shared<io::FaultStore>(copy);
      faulty->FailAt(k, action);
      bool c = false;
      Status s = RunWrite(file, r, *faulty, &c);
      report_.fault_runs++;
      std::string state = Fingerprint(copy);
      std::string where = "crash " + std::string(action == io::FaultAction::kCrashBefore ? "before" : "after") +
                          " request " + std::to_string(k) + " of " + std::to_string(n);
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

Result<std::vector<std::string>> Runner::RunQuery(const Record& r) {
  if (graph_ == nullptr) return InvalidArgumentError("no graph yet (add a `schema` record first)");
  OG_ASSIGN_OR_RETURN(engine::Snapshot snap, graph_->Head());
  OG_ASSIGN_OR_RETURN(auto queries, compiler::CompileQueries(snap.catalog(), r.body));
  if (queries.empty()) return InvalidArgumentError("no query in the record");
  const compiler::IrQuery& q = queries.front();
  OG_ASSIGN_OR_RETURN(auto bound, compiler::BindParamsJson(q.params, params_));
  params_.clear();
  OG_ASSIGN_OR_RETURN(engine::QueryResult res, engine::EvaluateReference(snap, q, bound, 0));
  std::vector<std::string> out;
  for (const auto& row : res.rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) line += (c ? "\t" : "") + CellText(row[c]);
    out.push_back(line);
  }
  bool ordered = std::find(r.words.begin(), r.words.end(), "ordered") != r.words.end();
  if (!ordered) std::sort(out.begin(), out.end());
  return out;
}

Result<std::vector<std::string>> Runner::Query(const Record& r) {
  const std::string& d = r.words[0];
  std::vector<std::string> out;
  if (graph_ == nullptr) return InvalidArgumentError("no graph yet (add a `schema` record first)");
  auto snap_or = [&]() -> Result<engine::Snapshot> {
    if (r.words.size() >= 3 && r.words[1] == "at") {
      auto it = labels_.find(r.words[2]);
      if (it == labels_.end()) return NotFoundError("unknown snapshot label " + r.words[2]);
      return graph_->AtCommit(it->second);
    }
    return graph_->Head();
  }();
  OG_RETURN_IF_ERROR(snap_or.status());
  const engine::Snapshot& snap = *snap_or;
  if (d == "counts") {
    OG_ASSIGN_OR_RETURN(auto counts, snap.RowCounts());
    for (const auto& [name, n] : counts) out.push_back(name + "\t" + std::to_string(n));
  } else if (d == "export") {
    std::vector<std::string> types;
    for (size_t i = 1; i < r.words.size(); ++i) {
      if (r.words[i] == "at") break;
      types.push_back(r.words[i]);
    }
    OG_RETURN_IF_ERROR(engine::ExportNdjson(snap, types, [&](std::string_view l) {
      out.push_back(MaskUlids(std::string(l)));
      return Status::Ok();
    }));
  } else if (d == "commits") {
    OG_ASSIGN_OR_RETURN(auto log, graph_->CommitLog("main"));
    for (const auto& c : log) {
      std::string line = c->operation;
      for (const auto& [name, n] : c->summary) {
        line += "\t" + name + " +" + std::to_string(n.inserted) + " ~" + std::to_string(n.updated) +
                " -" + std::to_string(n.deleted);
      }
      out.push_back(line);
    }
  }
  return out;
}

Status Runner::RunRecord(TestFile& file, Record& r) {
  if (r.words.empty()) return Status::Ok();
  const std::string& d = r.words[0];
  if (d == "schema" || d == "load") {
    Expectation e = ParseExpectation(r, d == "schema" ? 1 : (r.words.size() > 3 && r.words[2] == "branch" ? 4 : 2));
    uint64_t objects_before = memory_ ? memory_->object_count() : 0;
    if (config_ == Config::kFaultSweep && !e.error) {
      Status s = Sweep(file, r);
      if (!s.ok()) return Fail(r, s.message());
    }
    bool committed = false;
    Status s = RunWrite(file, r, *store_, &committed);
    Status outcome = CheckOutcome(s, e);
    if (!outcome.ok()) return Fail(r, outcome.message());
    if (e.error && memory_ && memory_->object_count() != objects_before) {
      return Fail(r, "a rejected write left objects behind");
    }
    if (d == "schema" && !e.error) OG_RETURN_IF_ERROR(Reopen());
  } else if (d == "counts" || d == "export" || d == "commits") {
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
    auto head = graph_->Head();
    if (!head.ok()) return Fail(r, head.status().ToString());
    labels_[r.words[1]] = head->commit().id;
  } else if (d == "restart") {
    OG_RETURN_IF_ERROR(Reopen());
  } else {
    return Fail(r, "unknown or not yet supported directive '" + d +
                       "' (branch/merge/use need the branch issue)");
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
