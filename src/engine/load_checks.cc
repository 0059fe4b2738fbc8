#include "engine/load_checks.h"

#include <unordered_map>
#include <unordered_set>

#include "common/json.h"
#include "common/thread_pool.h"
#include "engine/schema_store.h"
#include "table/id_index.h"

namespace omnigraph::engine {
namespace {

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// Reads whole columns of a table (small helper over ScanAll).
Result<format::Batch> ReadColumns(const table::TableVersion& t, std::vector<std::string> cols) {
  table::ScanOptions o;
  o.columns = std::move(cols);
  return t.ScanAll(o);
}

std::string TupleKey(const std::vector<Value>& values, bool* has_null) {
  std::string key;
  *has_null = false;
  for (const auto& v : values) {
    if (v.is_null()) *has_null = true;
    key += v.ToString();
    key += '\x1f';
  }
  return key;
}

}  // namespace

size_t TypeGroup::PropertyIndex(std::string_view name) const {
  const auto& props = properties();
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].name == name) return i;
  }
  return props.size();
}

std::vector<TypeGroup> GroupByType(const std::vector<LoadRecord>& records) {
  std::vector<TypeGroup> groups;
  std::map<std::string, size_t> index;
  for (const auto& r : records) {
    auto [it, fresh] = index.emplace(r.type_name(), groups.size());
    if (fresh) {
      TypeGroup g;
      g.name = r.type_name();
      g.is_edge = r.is_edge;
      g.node = r.node;
      g.edge = r.edge;
      groups.push_back(std::move(g));
    }
    groups[it->second].records.push_back(&r);
  }
  return groups;
}

void LoadChecker::Add(uint64_t line, ErrorCode code, std::string message) {
  if (Full()) {
    out_.truncated = true;
    return;
  }
  out_.errors.push_back(LoadError{line, code, std::move(message)});
}

bool LoadChecker::Overwritten(const std::string& type) const {
  return mode_ == LoadMode::kOverwrite && by_name_.count(type) > 0;
}

Result<LoadCheckResult> LoadChecker::Run(const std::vector<TypeGroup>& groups) {
  for (const auto& g : groups) by_name_[g.name] = &g;
  OG_RETURN_IF_ERROR(CheckIds(groups));
  OG_RETURN_IF_ERROR(CheckEndpoints(groups));
  OG_RETURN_IF_ERROR(CheckRetainedEdges(groups));
  for (const auto& g : groups) {
    OG_RETURN_IF_ERROR(CheckUniques(g));
    if (g.is_edge) OG_RETURN_IF_ERROR(CheckCardinality(g));
  }
  std::stable_sort(out_.errors.begin(), out_.errors.end(),
                   [](const LoadError& a, const LoadError& b) { return a.line < b.line; });
  return std::move(out_);
}

Status LoadChecker::CheckIds(const std::vector<TypeGroup>& groups) {
  for (const auto& g : groups) {
    // Views into the records (which outlive the checker); generated ids are fresh ULIDs.
    std::unordered_map<std::string_view, uint64_t> seen;
    seen.reserve(g.records.size());
    for (const LoadRecord* r : g.records) {
      if (!r->id_given) continue;
      auto [it, fresh] = seen.emplace(r->id, r->line);
      if (!fresh) {
        Add(r->line, ErrorCode::kLoadDuplicateId,
            g.name + " id " + Quote(r->id) + " already appears on line " + std::to_string(it->second));
      }
    }
    if (mode_ == LoadMode::kOverwrite) continue;
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(g.name));
    if (t.row_count() == 0) continue;
    OG_ASSIGN_OR_RETURN(table::IdIndex idx, table::IdIndex::Open(t));
    std::vector<std::string> ids;
    for (const LoadRecord* r : g.records) ids.push_back(r->id);
    auto found = idx.LookupMany(ids);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!found[i]) continue;
      if (mode_ == LoadMode::kAppend || g.records[i]->strict) {
        Add(g.records[i]->line, ErrorCode::kKeyConflict,
            g.name + " id " + Quote(ids[i]) + " already exists" +
                (g.records[i]->strict ? "" : " (use --mode merge to update it)"));
      } else {
        replaced_ids_[g.name].insert(ids[i]);
      }
    }
    out_.updated[g.name] = replaced_ids_[g.name].size();
  }
  return Status::Ok();
}

Status LoadChecker::CheckEndpoints(const std::vector<TypeGroup>& groups) {
  // Node ids per type available after the load: the batch, plus the snapshot unless overwritten.
  std::map<std::string, std::unordered_set<std::string_view>> batch_ids;
  for (const auto& g : groups) {
    if (g.is_edge) continue;
    auto& s = batch_ids[g.name];
    s.reserve(g.records.size());
    for (const LoadRecord* r : g.records) s.insert(r->id);
  }
  // Where to look for each node type, resolved once (the id index of a type is opened on first
  // need, before the parallel probes below, which only read).
  struct Side {
    const std::unordered_set<std::string_view>* batch = nullptr;
    const table::IdIndex* graph = nullptr;  // null: not in the graph (empty or overwritten)
  };
  std::map<std::string, std::optional<table::IdIndex>> indexes;
  auto side_of = [&](const std::string& type) -> Result<Side> {
    Side side;
    if (auto b = batch_ids.find(type); b != batch_ids.end()) side.batch = &b->second;
    if (Overwritten(type)) return side;
    auto& idx = indexes[type];
    if (!idx) {
      OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(type));
      if (t.row_count() == 0) return side;
      OG_ASSIGN_OR_RETURN(table::IdIndex opened, table::IdIndex::Open(t));
      idx = std::move(opened);
    }
    side.graph = &*idx;
    return side;
  };
  for (const auto& g : groups) {
    if (!g.is_edge) continue;
    OG_ASSIGN_OR_RETURN(Side from, side_of(g.edge->from_type));
    OG_ASSIGN_OR_RETURN(Side to, side_of(g.edge->to_type));
    auto exists = [](const Side& side, const std::string& id) {
      if (side.batch != nullptr && side.batch->count(id)) return true;
      return side.graph != nullptr && side.graph->Lookup(id).has_value();
    };
    // Probed in parallel chunks; each chunk keeps its first errors, merged in line order.
    constexpr size_t kChunk = 1 << 14;
    const size_t chunks = (g.records.size() + kChunk - 1) / kChunk;
    std::vector<std::vector<LoadError>> found(chunks);
    const size_t cap = max_errors_ + 1;
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(chunks, [&](size_t c) -> Status {
      for (size_t i = c * kChunk; i < std::min(g.records.size(), (c + 1) * kChunk) && found[c].size() < cap; ++i) {
        const LoadRecord* r = g.records[i];
        for (int side = 0; side < 2; ++side) {
          const std::string& type = side == 0 ? g.edge->from_type : g.edge->to_type;
          const std::string& id = side == 0 ? r->src : r->dst;
          if (exists(side == 0 ? from : to, id)) continue;
          found[c].push_back(LoadError{r->line, ErrorCode::kLoadDanglingEdge,
                                       g.name + " " + (side == 0 ? "\"from\"" : "\"to\"") + " " + Quote(id) +
                                           " is not a " + type + " in the graph or in this load"});
        }
      }
      return Status::Ok();
    }));
    for (auto& chunk : found) {
      for (auto& e : chunk) Add(e.line, e.code, std::move(e.message));
    }
    if (Full()) return Status::Ok();
  }
  return Status::Ok();
}

Status LoadChecker::CheckRetainedEdges(const std::vector<TypeGroup>& groups) {
  if (mode_ != LoadMode::kOverwrite) return Status::Ok();
  for (const auto& e : snap_.catalog().edges()) {
    if (by_name_.count(e.name)) continue;  // replaced too: its new edges were checked above
    bool from_over = Overwritten(e.from_type), to_over = Overwritten(e.to_type);
    if (!from_over && !to_over) continue;
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(e.name));
    if (t.row_count() == 0) continue;
    OG_ASSIGN_OR_RETURN(format::Batch b, ReadColumns(t, {"id", "src", "dst"}));
    std::map<std::string, std::unordered_set<std::string>> ids;
    for (const auto& g : groups) {
      if (g.is_edge) continue;
      for (const LoadRecord* r : g.records) ids[g.name].insert(r->id);
    }
    for (size_t row = 0; row < b.num_rows() && !Full(); ++row) {
      for (int side = 0; side < 2; ++side) {
        if (!(side == 0 ? from_over : to_over)) continue;
        const std::string& type = side == 0 ? e.from_type : e.to_type;
        std::string id = b.GetValue(row, 1 + side).string_value();
        if (!ids[type].count(id)) {
          Add(0, ErrorCode::kLoadDanglingEdge,
              "overwriting " + type + " would leave " + e.name + " edge " +
                  Quote(b.GetValue(row, 0).string_value()) + " without its " +
                  (side == 0 ? "source " : "target ") + Quote(id) + " (load " + e.name + " too)");
        }
      }
    }
  }
  (void)groups;
  return Status::Ok();
}

Status LoadChecker::CheckUniques(const TypeGroup& g) {
  const auto& uniques = g.is_edge ? g.edge->uniques : g.node->uniques;
  for (const auto& cols : uniques) {
    auto values_of = [&](const LoadRecord* r) {
      std::vector<Value> v;
      for (const auto& c : cols) {
        if (g.is_edge && c == "src") v.push_back(Value::String(r->src));
        else if (g.is_edge && c == "dst") v.push_back(Value::String(r->dst));
        else v.push_back(r->values[g.PropertyIndex(c)]);
      }
      return v;
    };
    std::string label = "@unique(";
    for (size_t i = 0; i < cols.size(); ++i) label += (i ? ", " : "") + cols[i];
    label += ")";
    std::unordered_map<std::string, std::pair<std::string, uint64_t>> batch;  // tuple -> (id, line)
    for (const LoadRecord* r : g.records) {
      bool has_null;
      std::string key = TupleKey(values_of(r), &has_null);
      if (has_null) continue;
      auto [it, fresh] = batch.emplace(key, std::make_pair(r->id, r->line));
      if (!fresh && it->second.first != r->id) {
        Add(r->line, ErrorCode::kLoadUnique,
            g.name + " " + label + " is violated: same values as line " + std::to_string(it->second.second));
      }
    }
    if (Overwritten(g.name) || batch.empty()) continue;
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(g.name));
    if (t.row_count() == 0) continue;
    std::vector<std::string> read_cols{"id"};
    read_cols.insert(read_cols.end(), cols.begin(), cols.end());
    OG_ASSIGN_OR_RETURN(format::Batch b, ReadColumns(t, read_cols));
    const auto& replaced = replaced_ids_[g.name];
    for (size_t row = 0; row < b.num_rows() && !Full(); ++row) {
      std::string existing_id = b.GetValue(row, 0).string_value();
      if (replaced.count(existing_id)) continue;  // its new image was checked in the batch
      std::vector<Value> v;
      for (size_t c = 0; c < cols.size(); ++c) v.push_back(b.GetValue(row, c + 1));
      bool has_null;
      auto it = batch.find(TupleKey(v, &has_null));
      if (!has_null && it != batch.end() && it->second.first != existing_id) {
        Add(it->second.second, ErrorCode::kLoadUnique,
            g.name + " " + label + " is violated: " + Quote(existing_id) + " already has these values");
      }
    }
  }
  return Status::Ok();
}

Status LoadChecker::CheckCardinality(const TypeGroup& g) {
  const compiler::Cardinality& card = g.edge->card;
  if (card.is_default()) return Status::Ok();
  std::unordered_map<std::string, uint64_t> count;    // source id -> edges after the load
  std::unordered_map<std::string, uint64_t> first_line;
  for (const LoadRecord* r : g.records) {
    ++count[r->src];
    first_line.emplace(r->src, r->line);
  }
  if (!Overwritten(g.name)) {
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(g.name));
    if (t.row_count() > 0) {
      OG_ASSIGN_OR_RETURN(format::Batch b, ReadColumns(t, {"id", "src"}));
      const auto& replaced = replaced_ids_[g.name];
      for (size_t row = 0; row < b.num_rows(); ++row) {
        std::string src = b.GetValue(row, 1).string_value();
        if (!first_line.count(src)) continue;  // untouched sources keep their (valid) counts
        if (replaced.count(b.GetValue(row, 0).string_value())) continue;
        ++count[src];
      }
    }
  }
  for (const auto& [src, n] : count) {
    bool over = card.max && n > *card.max;
    bool under = n < card.min;
    if (over || under) {
      Add(first_line[src], ErrorCode::kLoadCardinality,
          g.name + " source " + Quote(src) + " would have " + std::to_string(n) + " edge(s); @card allows " +
              std::to_string(card.min) + ".." + (card.max ? std::to_string(*card.max) : ""));
    }
  }
  return Status::Ok();
}

}  // namespace omnigraph::engine
