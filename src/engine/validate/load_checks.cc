#include "engine/validate/load_checks.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "common/hash.h"
#include "common/json.h"
#include "common/thread_pool.h"
#include "engine/graph/schema_store.h"
#include "table/id_index.h"
#include "table/index_probe.h"

namespace omnigraph::engine {
namespace {

std::string Quote(std::string_view s) { return Json(std::string(s)).dump(); }

// Reads whole columns of a table (small helper over ScanAll).
Result<format::Batch> ReadColumns(const table::TableVersion& t, std::vector<std::string> cols) {
  table::ScanOptions o;
  o.columns = std::move(cols);
  return t.ScanAll(o);
}

// A set of ids of a load, each with a value (the line that first had it): open addressing over
// 24-byte slots (a 32-bit hash tag, the length, a pointer into the load's columns, the value) at
// most 2/3 full, so a probe costs about one cache miss and compares bytes only on a tag match.
// Thread-safe once filled (Contains only).
class IdSet {
 public:
  // Room for `expected` ids.
  explicit IdSet(size_t expected) {
    size_t capacity = 16;
    while (capacity * 2 < expected * 3) capacity *= 2;
    slots_.resize(capacity);
    mask_ = capacity - 1;
  }
  // The ids of one node type in the load, for the endpoint probes.
  explicit IdSet(const TypeGroup& group) : IdSet(group.size()) {
    group.ForEach([&](const TypeSegment& s, size_t r) { Insert(s.id(r), 0); });
  }
  bool Contains(std::string_view id) const { return Contains(id, XxHash64(id)); }
  // The same with the id's hash known (h = XxHash64(id)).
  bool Contains(std::string_view id, uint64_t h) const {
    const uint32_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.tag == 0) return false;
      if (slot.tag == tag && std::string_view(slot.data, slot.size) == id) return true;
    }
  }

 private:
  struct Slot {
    uint32_t tag = 0;  // 0: empty
    uint32_t size = 0;
    const char* data = nullptr;
    uint64_t value = 0;
  };
  static uint32_t Tag(uint64_t h) { return static_cast<uint32_t>(h >> 32) | 1; }

 public:
  // Fetches the slot where a lookup of hash h starts (a block of lookups then waits once).
  void Prefetch(uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }
  // Adds `id` with `value` and returns nullopt, or returns the value of the id already there.
  // The id's bytes must outlive the set. At most `expected` ids.
  std::optional<uint64_t> Insert(std::string_view id, uint64_t value) {
    const uint64_t h = XxHash64(id);
    const uint32_t tag = Tag(h);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.tag == 0) {
        slot = Slot{tag, static_cast<uint32_t>(id.size()), id.data(), value};
        return std::nullopt;
      }
      if (slot.tag == tag && std::string_view(slot.data, slot.size) == id) return slot.value;
    }
  }

 private:
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

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
    size_t given = 0;  // (room for g.size() for 10M edges with generated ids would zero 360 MB)
    g.ForEach([&](const TypeSegment& s, size_t r) { given += s.id_given(r) ? 1 : 0; });
    IdSet seen(given);
    g.ForEach([&](const TypeSegment& s, size_t r) {
      if (!s.id_given(r)) return;
      if (std::optional<uint64_t> first = seen.Insert(s.id(r), s.lines[r])) {
        Add(s.lines[r], ErrorCode::kLoadDuplicateId,
            g.name + " id " + Quote(s.id(r)) + " already appears on line " + std::to_string(*first));
      }
    });
    if (mode_ == LoadMode::kOverwrite) continue;
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(g.name));
    if (t.row_count() == 0) continue;
    std::vector<std::string> ids;
    std::vector<std::pair<uint64_t, bool>> line_strict;
    ids.reserve(g.size());
    line_strict.reserve(g.size());
    g.ForEach([&](const TypeSegment& s, size_t r) {
      ids.emplace_back(s.id(r));
      line_strict.emplace_back(s.lines[r], s.strict(r));
    });
    // Few ids against a large table: probe their buckets; else open the whole id index.
    std::vector<std::optional<uint64_t>> found;
    if (table::FewLookups(t, ids.size())) {
      OG_ASSIGN_OR_RETURN(found, table::ProbeIds(t, ids));
    } else {
      OG_ASSIGN_OR_RETURN(table::IdIndex idx, table::IdIndex::Open(t));
      found = idx.LookupMany(ids);
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      if (!found[i]) continue;
      const auto [line, strict] = line_strict[i];
      if (mode_ == LoadMode::kAppend || strict) {
        Add(line, ErrorCode::kKeyConflict,
            g.name + " id " + Quote(ids[i]) + " already exists" + (strict ? "" : " (use --mode merge to update it)"));
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
  std::map<std::string, IdSet> batch_ids;
  for (const auto& g : groups) {
    if (!g.is_edge) batch_ids.emplace(g.name, IdSet(g));
  }
  // Where to look for each node type, resolved once (the id index of a type is opened on first
  // need, before the parallel probes below, which only read).
  struct Side {
    const IdSet* batch = nullptr;
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
  // A few edges against large node tables: the endpoints not in the load are probed by id (their
  // buckets only) instead of opening the node tables' whole id indexes.
  auto probed_side = [&](const std::string& type, const TypeGroup& g, bool src,
                         std::unordered_set<std::string_view>* known) -> Result<std::optional<Side>> {
    Side side;
    if (auto b = batch_ids.find(type); b != batch_ids.end()) side.batch = &b->second;
    if (Overwritten(type)) return std::optional<Side>(side);
    OG_ASSIGN_OR_RETURN(table::TableVersion t, snap_.Table(type));
    if (!table::FewLookups(t, 2 * g.size())) return std::optional<Side>();
    std::vector<std::string> ids;
    std::vector<std::string_view> views;  // into the load's records, which outlive the checker
    g.ForEach([&](const TypeSegment& s, size_t r) {
      const std::string_view id = src ? s.src(r) : s.dst(r);
      if (side.batch == nullptr || !side.batch->Contains(id)) {
        ids.emplace_back(id);
        views.push_back(id);
      }
    });
    OG_ASSIGN_OR_RETURN(auto found, table::ProbeIds(t, ids));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (found[i]) known->insert(views[i]);
    }
    return std::optional<Side>(side);
  };
  for (const auto& g : groups) {
    if (!g.is_edge) continue;
    std::unordered_set<std::string_view> known_from, known_to;
    OG_ASSIGN_OR_RETURN(std::optional<Side> few_from, probed_side(g.edge->from_type, g, true, &known_from));
    OG_ASSIGN_OR_RETURN(std::optional<Side> few_to, probed_side(g.edge->to_type, g, false, &known_to));
    Side from, to;
    if (few_from) {
      from = *few_from;
    } else {
      OG_ASSIGN_OR_RETURN(from, side_of(g.edge->from_type));
    }
    if (few_to) {
      to = *few_to;
    } else {
      OG_ASSIGN_OR_RETURN(to, side_of(g.edge->to_type));
    }
    const std::unordered_set<std::string_view>* known[2] = {few_from ? &known_from : nullptr,
                                                            few_to ? &known_to : nullptr};
    auto exists = [](const Side& side, std::string_view id, uint64_t h) {
      if (side.batch != nullptr && side.batch->Contains(id, h)) return true;
      return side.graph != nullptr && side.graph->Lookup(id).has_value();
    };
    // Probed in parallel ranges of rows; each keeps its first errors, merged in line order.
    constexpr size_t kRange = 1 << 14;
    struct Range {
      const TypeSegment* segment;
      size_t begin, end;
    };
    std::vector<Range> ranges;
    for (const TypeSegment& s : g.segments) {
      for (size_t b = 0; b < s.size(); b += kRange) ranges.push_back({&s, b, std::min(s.size(), b + kRange)});
    }
    std::vector<std::vector<LoadError>> found(ranges.size());
    const size_t cap = max_errors_ + 1;
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(ranges.size(), [&](size_t c) -> Status {
      const TypeSegment& s = *ranges[c].segment;
      // Blocks of rows: hash the block's endpoints and fetch their slots, then look them up. An
      // endpoint equal to the row before's (edges grouped by source) takes that row's answer.
      constexpr size_t kBlock = 16;
      uint64_t hashes[2][kBlock];
      bool same[2][kBlock];
      bool ok_before[2] = {false, false};
      const size_t begin = ranges[c].begin;
      for (size_t b = begin; b < ranges[c].end && found[c].size() < cap; b += kBlock) {
        const size_t e = std::min(ranges[c].end, b + kBlock);
        for (size_t i = b; i < e; ++i) {
          for (int side = 0; side < 2; ++side) {
            const std::string_view id = side == 0 ? s.src(i) : s.dst(i);
            same[side][i - b] = i > begin && id == (side == 0 ? s.src(i - 1) : s.dst(i - 1));
            if (same[side][i - b]) continue;
            hashes[side][i - b] = XxHash64(id);
            const Side& where = side == 0 ? from : to;
            if (where.batch != nullptr) where.batch->Prefetch(hashes[side][i - b]);
          }
        }
        for (size_t i = b; i < e; ++i) {
          for (int side = 0; side < 2; ++side) {
            const std::string_view id = side == 0 ? s.src(i) : s.dst(i);
            bool ok = same[side][i - b] ? ok_before[side] : exists(side == 0 ? from : to, id, hashes[side][i - b]);
            if (!ok && known[side] != nullptr && known[side]->count(id)) ok = true;
            ok_before[side] = ok;
            if (ok) continue;
            const std::string& type = side == 0 ? g.edge->from_type : g.edge->to_type;
            found[c].push_back(LoadError{s.lines[i], ErrorCode::kLoadDanglingEdge,
                                         g.name + " " + (side == 0 ? "\"from\"" : "\"to\"") + " " + Quote(id) +
                                             " is not a " + type + " in the graph or in this load"});
          }
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
      auto& type_ids = ids[g.name];
      g.ForEach([&](const TypeSegment& s, size_t r) { type_ids.emplace(s.id(r)); });
    }
    for (size_t row = 0; row < b.num_rows() && !Full(); ++row) {
      for (int side = 0; side < 2; ++side) {
        if (!(side == 0 ? from_over : to_over)) continue;
        const std::string& type = side == 0 ? e.from_type : e.to_type;
        std::string id = b.GetValue(row, 1 + side).string_value();
        if (!ids[type].count(id)) {
          Add(0, ErrorCode::kLoadDanglingEdge,
              "overwriting " + type + " would leave " + e.name + " edge " + Quote(b.GetValue(row, 0).string_value()) +
                  " without its " + (side == 0 ? "source " : "target ") + Quote(id) + " (load " + e.name + " too)");
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
    auto values_of = [&](const TypeSegment& s, size_t i) {
      std::vector<Value> v;
      for (const auto& c : cols) {
        if (g.is_edge && c == "src")
          v.push_back(Value::String(std::string(s.src(i))));
        else if (g.is_edge && c == "dst")
          v.push_back(Value::String(std::string(s.dst(i))));
        else
          v.push_back(s.values[g.PropertyIndex(c)].GetValue(i));
      }
      return v;
    };
    std::string label = "@unique(";
    for (size_t i = 0; i < cols.size(); ++i) label += (i ? ", " : "") + cols[i];
    label += ")";
    std::unordered_map<std::string, std::pair<std::string, uint64_t>> batch;  // tuple -> (id, line)
    g.ForEach([&](const TypeSegment& s, size_t i) {
      bool has_null;
      std::string key = TupleKey(values_of(s, i), &has_null);
      if (has_null) return;
      auto [it, fresh] = batch.emplace(key, std::make_pair(std::string(s.id(i)), s.lines[i]));
      if (!fresh && it->second.first != s.id(i)) {
        Add(s.lines[i], ErrorCode::kLoadUnique,
            g.name + " " + label + " is violated: same values as line " + std::to_string(it->second.second));
      }
    });
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
  std::unordered_map<std::string, uint64_t> count;  // source id -> edges after the load
  std::unordered_map<std::string, uint64_t> first_line;
  g.ForEach([&](const TypeSegment& s, size_t i) {
    std::string src(s.src(i));
    ++count[src];
    first_line.emplace(std::move(src), s.lines[i]);
  });
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
