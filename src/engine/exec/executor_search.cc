// The search and ranking functions in the executor (docs/search.md): text filters per row or
// through the column's inverted index (built from the table version, so always exact and fresh),
// nearest() distances (exact, or the candidates of the property's ANN segment re-ranked exactly,
// with rows of fragments the segment does not cover searched exactly), bm25() scores over the
// type's whole table, rrf() over the query's rows.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <span>
#include <string>

#include "common/error_codes.h"
#include "common/logging.h"
#include "engine/exec/executor_internal.h"
#include "engine/search/rank.h"
#include "engine/search/text.h"
#include "engine/search/vector.h"
#include "engine/search/vector_index.h"
#include "table/table_version.h"

namespace omnigraph::engine::exec {

using compiler::IrExpr;
using compiler::IrExprKind;

namespace {

using search::kMaxQueryTextBytes;
using search::kMaxRankedRows;

Result<std::string> QueryText(const Value& v, std::string_view fn) {
  if (v.is_null()) return std::string();
  if (v.kind() != TypeKind::kString) return InvalidArgumentError(std::string(fn) + "() query must be a String");
  if (v.string_value().size() > kMaxQueryTextBytes) {
    return Status(ErrorCode::kResourceExhausted, std::string(fn) + "() query text is " +
                                                     std::to_string(v.string_value().size()) + " bytes; the limit is " +
                                                     std::to_string(kMaxQueryTextBytes));
  }
  return v.string_value();
}

// fuzzy()'s max_edits: an integer >= 0 (more than 64 edits match like 64).
Result<uint32_t> MaxEdits(const Value& edits) {
  if (edits.is_null()) return InvalidArgumentError("fuzzy() max_edits is null");
  const bool is_signed = edits.kind() == TypeKind::kI32 || edits.kind() == TypeKind::kI64;
  if (is_signed && edits.int_value() < 0) return InvalidArgumentError("fuzzy() max_edits must be >= 0");
  const uint64_t n = is_signed ? static_cast<uint64_t>(edits.int_value()) : edits.uint_value();
  return static_cast<uint32_t>(std::min<uint64_t>(n, 64));
}

bool ContainsRrf(const IrExpr& e) {
  if (e.kind == IrExprKind::kRrf) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const IrExpr& a) { return ContainsRrf(a); });
}

void CollectRrf(const IrExpr& e, std::vector<const IrExpr*>* out) {
  if (e.kind == IrExprKind::kRrf) {
    if (std::find(out->begin(), out->end(), &e) == out->end()) out->push_back(&e);
    return;
  }
  for (const IrExpr& a : e.args) CollectRrf(a, out);
}

}  // namespace

// Rows a text filter tests one by one before it builds (or takes) its column's index.
constexpr uint64_t kRowsBeforeIndex = 256;
// nearest() rankings use the property's ANN segment only over at least this many rows, binding at
// least 1/kAnnMinShare of the type's entities; below that, exact distances are cheap.
constexpr size_t kAnnMinRows = 2048;
constexpr uint64_t kAnnMinShare = 20;
// The ANN search's candidate list (hnswlib's ef): OMNIGRAPH_ANN_EF (16 .. 65536), default 128
// (recall@10 about 0.97 on embedding-like 128-d vectors: docs/benchmarks.md, search_bench).
size_t AnnEf() {
  static const size_t ef = [] {
    const char* env = std::getenv("OMNIGRAPH_ANN_EF");
    if (env == nullptr || *env == '\0') return size_t{128};
    char* end = nullptr;
    const unsigned long long v = std::strtoull(env, &end, 10);
    if (end == env || *end != '\0' || v < 16 || v > 65536) {
      LogWarn("OMNIGRAPH_ANN_EF must be an integer in 16 .. 65536; using 128");
      return size_t{128};
    }
    return static_cast<size_t>(v);
  }();
  return ef;
}

bool UsesRrf(const compiler::IrQuery& q) {
  for (const auto& p : q.projections) {
    if (ContainsRrf(p.expr)) return true;
  }
  for (const auto& o : q.order) {
    if (ContainsRrf(o.expr)) return true;
  }
  return false;
}

Status CheckRankingLimit(const compiler::IrQuery& q) {
  for (const auto& o : q.order) {
    const bool ranks = o.expr.kind == IrExprKind::kNearest || o.expr.kind == IrExprKind::kRrf;
    if (ranks && q.limit.value_or(0) > kMaxRankedRows) {
      return Status(ErrorCode::kResourceExhausted, "a nearest()/rrf() ranking returns at most " +
                                                       std::to_string(kMaxRankedRows) + " rows; the query asks for " +
                                                       std::to_string(*q.limit));
    }
  }
  return Status::Ok();
}

Result<const search::TextIndex*> Context::TextIndexFor(const std::string& type, const std::string& property,
                                                       bool build) {
  const std::string key = type + '\x1f' + property;
  if (auto it = text_indexes_.find(key); it != text_indexes_.end()) return it->second.get();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, Table(type));
  std::shared_ptr<const search::TextIndex> idx = cache_->CachedDerived<search::TextIndex>(*tv, "text", property);
  if (!idx) {
    // A persisted segment (built by `optimize`) makes the index cheap: its documents are
    // renumbered to this version's ordinals (deleted rows dropped) and only rows of fragments it
    // does not cover are analyzed.
    const table::IndexSegmentMeta* seg = nullptr;
    if (const table::Field* f = tv->schema().FindByName(property)) {
      for (const table::IndexSegmentMeta& s : tv->manifest().indexes) {
        if (s.kind != search::kTextIndexKind || s.field_id != f->id || s.keys.empty()) continue;
        if (seg == nullptr || s.fragment_ids.size() > seg->fragment_ids.size()) seg = &s;
      }
    }
    if (!build && seg == nullptr) return static_cast<const search::TextIndex*>(nullptr);
    OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(type));
    OG_ASSIGN_OR_RETURN(const format::Column* col, Column(type, property));
    auto text_of = [col](uint32_t o) -> std::optional<std::string_view> {
      if (col == nullptr || !col->IsValid(o)) return std::nullopt;
      return col->string_at(o);
    };
    OG_ASSIGN_OR_RETURN(
        idx, cache_->DerivedFor<search::TextIndex>(*tv, "text", property, [&]() -> Result<search::TextIndex> {
          if (seg != nullptr) {
            Result<search::TextIndex> merged = TextIndexFromSegment(*tv, *seg, *ord, text_of);
            if (merged.ok()) return merged;
            LogWarn("the text index of " + type + "." + property + " is rebuilt: " + merged.status().ToString());
          }
          return search::TextIndex::Build(ord->size(), [&](size_t i) { return text_of(static_cast<uint32_t>(i)); });
        }));
  }
  return text_indexes_.emplace(key, std::move(idx)).first->second.get();
}

Result<search::TextIndex> Context::TextIndexFromSegment(
    const table::TableVersion& tv, const table::IndexSegmentMeta& seg, const TableOrdinals& ord,
    const std::function<std::optional<std::string_view>(uint32_t)>& text_of) {
  const std::string key = tv.AbsoluteKey(seg.keys[0]);
  OG_ASSIGN_OR_RETURN(std::shared_ptr<const search::TextIndex::Decoded> base,
                      cache_->DerivedByKey<search::TextIndex::Decoded>(
                          "text-segment", key, [&]() -> Result<search::TextIndex::Decoded> {
                            OG_ASSIGN_OR_RETURN(std::string object, tv.store().Get(key));
                            return search::TextIndex::Decode(object, key);
                          }));
  search::TextIndex::Part from_base{&base->index, {}};
  from_base.docs.reserve(base->labels.size());
  for (uint64_t label : base->labels) {
    std::optional<uint32_t> o = ord.FromAddress(label);  // nullopt: deleted or compacted away
    from_base.docs.push_back(o ? *o : search::TextIndex::kDropped);
  }
  // The rows of fragments the segment does not cover: analyzed now.
  const table::Manifest& m = tv.manifest();
  std::vector<bool> covered(m.next_fragment_id, false);
  for (uint32_t fid : seg.fragment_ids) {
    if (fid < covered.size()) covered[fid] = true;
  }
  std::vector<uint32_t> fresh;
  for (uint32_t o = 0; o < ord.size(); ++o) {
    const uint32_t fid = table::RowAddressFragment(ord.address(o));
    if (fid >= covered.size() || !covered[fid]) fresh.push_back(o);
  }
  const search::TextIndex delta = search::TextIndex::Build(fresh.size(), [&](size_t i) { return text_of(fresh[i]); });
  return search::TextIndex::Merge(ord.size(), {from_base, search::TextIndex::Part{&delta, fresh}});
}

bool Context::TextIndexable(const IrExpr& e) {
  const bool text = e.kind == IrExprKind::kSearch || e.kind == IrExprKind::kMatchText || e.kind == IrExprKind::kFuzzy;
  return text && e.args[0].kind == IrExprKind::kProperty && e.args[0].var >= 0 && IsConstant(e.args[1]) &&
         (e.kind != IrExprKind::kFuzzy || IsConstant(e.args[2]));
}

Result<const std::vector<bool>*> Context::TextMatchSet(const IrExpr& e, bool build) {
  if (auto m = text_matches_.find(&e); m != text_matches_.end()) return &m->second;
  if (!TextIndexable(e)) return static_cast<const std::vector<bool>*>(nullptr);
  const IrExpr& field = e.args[0];
  OG_ASSIGN_OR_RETURN(const search::TextIndex* idx, TextIndexFor(TypeOf(field.var), field.property, build));
  if (idx == nullptr) return static_cast<const std::vector<bool>*>(nullptr);
  const std::string fn(compiler::SearchFunctionName(e.kind));
  OG_ASSIGN_OR_RETURN(Value qv, Eval(e.args[1], nullptr));
  OG_ASSIGN_OR_RETURN(std::string text, QueryText(qv, fn));
  std::vector<uint32_t> docs;
  if (e.kind == IrExprKind::kFuzzy) {
    OG_ASSIGN_OR_RETURN(Value edits, Eval(e.args[2], nullptr));
    OG_ASSIGN_OR_RETURN(uint32_t max_edits, MaxEdits(edits));
    docs = idx->MatchFuzzy(search::AnalyzeUnstemmed(text), max_edits);
  } else if (e.kind == IrExprKind::kSearch) {
    docs = idx->MatchAny(search::Analyze(text));
  } else {
    docs = idx->MatchPhrase(search::Analyze(text));
  }
  OG_RETURN_IF_ERROR(Charge(idx->size() / 8 + 1));
  std::vector<bool>& bits = text_matches_[&e];
  bits.assign(idx->size(), false);
  for (uint32_t d : docs) bits[d] = true;
  return &bits;
}

Result<const std::vector<double>*> Context::Bm25Of(const IrExpr& e) {
  auto it = bm25_.find(&e);
  if (it != bm25_.end()) return &it->second;
  const IrExpr& field = e.args[0];
  if (!IsConstant(e.args[1])) return InvalidArgumentError("bm25() query must be a parameter or a literal");
  OG_ASSIGN_OR_RETURN(Value qv, Eval(e.args[1], nullptr));
  OG_ASSIGN_OR_RETURN(std::string text, QueryText(qv, "bm25"));
  // Statistics over every row of the type in this snapshot, not only the rows the match keeps:
  // the column's index holds them.
  OG_ASSIGN_OR_RETURN(const search::TextIndex* idx, TextIndexFor(TypeOf(field.var), field.property, true));
  OG_RETURN_IF_ERROR(Charge(8 * uint64_t{idx->size()}));
  return &bm25_.emplace(&e, idx->Bm25(text)).first->second;
}

Result<const std::vector<float>*> Context::NearestQuery(const IrExpr& e) {
  const IrExpr& field = e.args[0];
  auto it = query_vectors_.find(&e);
  if (it == query_vectors_.end()) {
    if (!IsConstant(e.args[1])) return InvalidArgumentError("nearest() query must be a parameter or a literal");
    OG_ASSIGN_OR_RETURN(Value qv, Eval(e.args[1], nullptr));
    const uint32_t dim = field.type.data.dimension;
    const std::string& type = TypeOf(field.var);
    std::vector<float> query;
    if (qv.is_null()) {
      return InvalidArgumentError("nearest() query on " + type + "." + field.property + " is null");
    } else if (qv.kind() == TypeKind::kString) {
      OG_ASSIGN_OR_RETURN(std::string text, QueryText(qv, "nearest"));
      std::string model;
      if (const compiler::NodeType* node = snap_.catalog().FindNode(type)) {
        if (const compiler::Property* p = node->FindProperty(field.property); p != nullptr && p->embed) {
          model = p->embed->model;
        }
      }
      OG_ASSIGN_OR_RETURN(query, search::EmbedQuery(text, dim, model, type + "." + field.property));
    } else if (qv.kind() == TypeKind::kVector) {
      query = qv.vector_value();
    } else {
      return InvalidArgumentError("nearest() query must be a Vector or a String");
    }
    if (query.size() != dim) {
      return Status(ErrorCode::kTypeTraversalBounds,
                    "nearest() on " + type + "." + field.property + ": the property is Vector(" + std::to_string(dim) +
                        "), the query has " + std::to_string(query.size()) + " values");
    }
    it = query_vectors_.emplace(&e, std::move(query)).first;
  }
  return &it->second;
}

Result<Value> Context::EvalSearch(const IrExpr& e, const int64_t* row) {
  switch (e.kind) {
    case IrExprKind::kSearch:
    case IrExprKind::kMatchText:
    case IrExprKind::kFuzzy: {
      const std::string fn(compiler::SearchFunctionName(e.kind));
      const bool fuzzy = e.kind == IrExprKind::kFuzzy;
      const IrExpr& field_expr = e.args[0];
      // The matching set of the column's index, once this filter has tested enough rows (or the
      // index exists): a bit per row of the type.
      if (auto m = text_matches_.find(&e); m != text_matches_.end() && row != nullptr && row[field_expr.var] >= 0) {
        const auto o = static_cast<size_t>(row[field_expr.var]);
        return Value::Bool(o < m->second.size() && m->second[o]);
      }
      if (row != nullptr && row[field_expr.var] >= 0 && TextIndexable(e)) {
        const bool build = ++text_rows_[&e] > kRowsBeforeIndex;
        OG_ASSIGN_OR_RETURN(const std::vector<bool>* bits, TextMatchSet(e, build));
        if (bits != nullptr) {
          const auto o = static_cast<size_t>(row[field_expr.var]);
          return Value::Bool(o < bits->size() && (*bits)[o]);
        }
      }
      OG_ASSIGN_OR_RETURN(Value field, Eval(field_expr, row));
      if (field.is_null()) return Value::Bool(false);
      // The query: analyzed once when it is a parameter or a literal, per row otherwise.
      std::vector<search::Token> per_row;
      const std::vector<search::Token>* query = nullptr;
      if (auto it = text_queries_.find(&e); it != text_queries_.end()) {
        query = &it->second;
      } else {
        OG_ASSIGN_OR_RETURN(Value qv, Eval(e.args[1], row));
        OG_ASSIGN_OR_RETURN(std::string text, QueryText(qv, fn));
        per_row = fuzzy ? search::AnalyzeUnstemmed(text) : search::Analyze(text);
        if (IsConstant(e.args[1])) {
          query = &text_queries_.emplace(&e, std::move(per_row)).first->second;
        } else {
          query = &per_row;
        }
      }
      if (query->empty()) return Value::Bool(false);
      if (e.kind == IrExprKind::kSearch) {
        return Value::Bool(search::ContainsAnyToken(search::Analyze(field.string_value()), *query));
      }
      if (e.kind == IrExprKind::kMatchText) {
        return Value::Bool(search::ContainsPhrase(search::Analyze(field.string_value()), *query));
      }
      OG_ASSIGN_OR_RETURN(Value edits, Eval(e.args[2], row));
      OG_ASSIGN_OR_RETURN(uint32_t max_edits, MaxEdits(edits));
      return Value::Bool(search::FuzzyMatches(search::AnalyzeUnstemmed(field.string_value()), *query, max_edits));
    }
    case IrExprKind::kBm25: {
      const IrExpr& field = e.args[0];
      if (row == nullptr || field.var < 0 || row[field.var] < 0) return Value::Null(e.type.data);
      OG_ASSIGN_OR_RETURN(const std::vector<double>* scores, Bm25Of(e));
      const auto o = static_cast<size_t>(row[field.var]);
      return Value::F64(o < scores->size() ? (*scores)[o] : 0.0);
    }
    case IrExprKind::kNearest: {
      const IrExpr& field = e.args[0];
      OG_ASSIGN_OR_RETURN(const std::vector<float>* query, NearestQuery(e));
      // The row's vector straight from the column (no value copied), unless a point read has it.
      if (row != nullptr && row[field.var] >= 0 && !point_values_.count(&field)) {
        const format::Column* col = nullptr;
        if (auto c = expr_columns_.find(&field); c != expr_columns_.end()) {
          col = c->second;
        } else {
          OG_ASSIGN_OR_RETURN(col, Column(TypeOf(field.var), field.property));
          expr_columns_.emplace(&field, col);
        }
        const auto o = static_cast<size_t>(row[field.var]);
        if (col == nullptr || !col->IsValid(o)) return Value::Null(e.type.data);
        return Value::F64(search::SquaredL2(col->vector_at(o), *query));
      }
      OG_ASSIGN_OR_RETURN(Value v, Eval(field, row));
      if (v.is_null()) return Value::Null(e.type.data);
      if (v.kind() != TypeKind::kVector) return InternalError("nearest() over a non-vector value");
      return Value::F64(search::SquaredL2(v.vector_value(), *query));
    }
    case IrExprKind::kRrf: {
      auto it = rrf_.find(&e);
      if (it == rrf_.end()) return InternalError("rrf() evaluated before its rows were ranked");
      const int var = e.args[0].args[0].var;
      if (row == nullptr || row[var] < 0) return Value::Null(e.type.data);
      auto f = it->second.find(row[var]);
      if (f == it->second.end()) return Value::Null(e.type.data);
      return Value::F64(f->second.score);
    }
    default: return InternalError("not a search or ranking expression");
  }
}

Status Context::NearestDistances(const IrExpr& e, const Rows& rows, std::vector<double>* out,
                                 std::optional<uint64_t> top) {
  out->assign(rows.size(), std::numeric_limits<double>::quiet_NaN());
  if (rows.size() == 0) return Status::Ok();
  const IrExpr& field = e.args[0];
  // The query vector (and its checks) through the per-row path, on the first row with a binding.
  size_t first = 0;
  while (first < rows.size() && rows.row(first)[field.var] < 0) ++first;
  if (first == rows.size()) return Status::Ok();
  if (Result<Value> r = EvalSearch(e, rows.row(first)); !r.ok()) return r.status();
  if (point_values_.count(&field)) {  // values read by point: the per-row path knows them
    for (size_t i = 0; i < rows.size(); ++i) {
      Result<Value> v = EvalSearch(e, rows.row(i));
      if (!v.ok()) return v.status();
      if (!v->is_null()) (*out)[i] = v->float_value();
    }
    return Status::Ok();
  }
  const std::vector<float>& query = query_vectors_.at(&e);
  OG_ASSIGN_OR_RETURN(const format::Column* col, Column(TypeOf(field.var), field.property));
  if (col == nullptr) return Status::Ok();
  if (top && *top > 0 && rows.size() >= kAnnMinRows) {
    OG_ASSIGN_OR_RETURN(bool done, AnnDistances(e, rows, query, *col, *top, out));
    if (done) return Status::Ok();
    out->assign(rows.size(), std::numeric_limits<double>::quiet_NaN());
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t o = rows.row(i)[field.var];
    if (o < 0 || !col->IsValid(static_cast<size_t>(o))) continue;
    (*out)[i] = search::SquaredL2(col->vector_at(static_cast<size_t>(o)), query);
  }
  return Status::Ok();
}

Result<std::optional<std::vector<uint32_t>>> Context::AnnCandidates(const IrExpr& e, std::span<const uint32_t> ordinals,
                                                                    uint64_t top) {
  using Out = std::optional<std::vector<uint32_t>>;
  const IrExpr& field = e.args[0];
  const std::string& type = TypeOf(field.var);
  if (top == 0 || ordinals.size() < kAnnMinRows) return Out();
  OG_ASSIGN_OR_RETURN(const table::TableVersion* tv, Table(type));
  const table::Field* f = tv->schema().FindByName(field.property);
  if (f == nullptr) return Out();
  const table::IndexSegmentMeta* seg = nullptr;
  for (const table::IndexSegmentMeta& s : tv->manifest().indexes) {
    if (s.kind != search::kVectorIndexKind || s.field_id != f->id || s.keys.empty()) continue;
    if (seg == nullptr || s.fragment_ids.size() > seg->fragment_ids.size()) seg = &s;
  }
  if (seg == nullptr) return Out();
  OG_ASSIGN_OR_RETURN(const TableOrdinals* ord, Ordinals(type));
  // A small share of the table is cheaper to rank exactly (and an ANN search would have to look
  // far to find enough of it).
  if (ordinals.size() * kAnnMinShare < ord->size()) return Out();
  OG_ASSIGN_OR_RETURN(const std::vector<float>* query, NearestQuery(e));
  OG_ASSIGN_OR_RETURN(const format::Column* col, Column(type, field.property));
  if (col == nullptr) return Out();
  const std::string key = tv->AbsoluteKey(seg->keys[0]);
  const uint32_t dim = field.type.data.dimension;
  Result<std::shared_ptr<const search::VectorIndex>> index =
      cache_->DerivedByKey<search::VectorIndex>("vector", key, [&]() -> Result<search::VectorIndex> {
        OG_ASSIGN_OR_RETURN(std::string object, tv->store().Get(key));
        return search::VectorIndex::Decode(object, dim, key);
      });
  if (!index.ok()) {  // the exact path answers; the index is only a shortcut
    LogWarn("nearest() on " + type + "." + field.property + " searches exactly: " + index.status().ToString());
    return Out();
  }
  OG_RETURN_IF_ERROR(Charge(ord->size()));
  std::vector<uint8_t> wanted(ord->size(), 0);
  for (uint32_t o : ordinals) wanted[o] = 1;
  std::vector<uint32_t> out;
  uint64_t with_vector = 0;
  auto take = [&](uint32_t o) {
    if (wanted[o] != 1) return;
    wanted[o] = 2;  // taken once
    out.push_back(o);
    with_vector += col->IsValid(o) ? 1 : 0;
  };
  // Rows of fragments the segment does not cover (written since it was built): all of them.
  const table::Manifest& m = tv->manifest();
  if (seg->fragment_ids.size() != m.fragments.size()) {
    std::vector<bool> covered(m.next_fragment_id, false);
    for (uint32_t fid : seg->fragment_ids) {
      if (fid < covered.size()) covered[fid] = true;
    }
    for (uint32_t o : ordinals) {
      const uint32_t fid = table::RowAddressFragment(ord->address(o));
      if (fid >= covered.size() || !covered[fid]) take(o);
    }
  }
  // The index's candidates: enough that `top` of them are likely among the wanted rows.
  const double share = static_cast<double>(ordinals.size()) / static_cast<double>(ord->size());
  const auto want = static_cast<size_t>(std::ceil(static_cast<double>(top) / share)) + top;
  for (const auto& [approx, label] : (*index)->Search(*query, want, AnnEf())) {
    if (std::optional<uint32_t> o = ord->FromAddress(label)) take(*o);  // nullopt: deleted or compacted
  }
  if (with_vector < top) return Out();  // a filter left too few of them: rank every row exactly
  std::sort(out.begin(), out.end());
  return Out(std::move(out));
}

Result<bool> Context::AnnDistances(const IrExpr& e, const Rows& rows, const std::vector<float>& query,
                                   const format::Column& col, uint64_t top, std::vector<double>* out) {
  const int var = e.args[0].var;
  std::vector<uint32_t> ordinals;
  ordinals.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows.row(i)[var] >= 0) ordinals.push_back(static_cast<uint32_t>(rows.row(i)[var]));
  }
  std::sort(ordinals.begin(), ordinals.end());
  ordinals.erase(std::unique(ordinals.begin(), ordinals.end()), ordinals.end());
  OG_ASSIGN_OR_RETURN(std::optional<std::vector<uint32_t>> cands, AnnCandidates(e, ordinals, top));
  if (!cands) return false;
  // Exact distances of the candidates, then each row's by binary search among them.
  std::vector<double> dist(cands->size(), std::numeric_limits<double>::quiet_NaN());
  for (size_t j = 0; j < cands->size(); ++j) {
    if (col.IsValid((*cands)[j])) dist[j] = search::SquaredL2(col.vector_at((*cands)[j]), query);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const int64_t o = rows.row(i)[var];
    if (o < 0) continue;
    auto at = std::lower_bound(cands->begin(), cands->end(), static_cast<uint32_t>(o));
    if (at != cands->end() && *at == static_cast<uint32_t>(o))
      (*out)[i] = dist[static_cast<size_t>(at - cands->begin())];
  }
  return true;
}

Status Context::PrepareRrf(const Rows& rows) {
  std::vector<const IrExpr*> fused;
  for (const auto& p : q_.projections) CollectRrf(p.expr, &fused);
  for (const auto& o : q_.order) CollectRrf(o.expr, &fused);
  for (const IrExpr* e : fused) {
    const int var = e->args[0].args[0].var;
    if (e->args[1].args[0].var != var) {
      return InvalidArgumentError("rrf() fuses two rankings of the same variable");
    }
    const uint64_t limit = q_.limit.value_or(0);
    OG_ASSIGN_OR_RETURN(Value kv, Eval(e->args[2], nullptr));
    const double k = static_cast<double>(kv.is_null() ? 60 : kv.uint_value());
    std::vector<int64_t> arms[2];
    for (int a = 0; a < 2; ++a) {
      const IrExpr& arm = e->args[a];
      std::vector<search::ArmEntry> entries;
      entries.reserve(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        const int64_t* r = rows.row(i);
        if (r[var] < 0) continue;
        OG_ASSIGN_OR_RETURN(Value s, EvalSearch(arm, r));
        if (s.is_null()) continue;
        OG_ASSIGN_OR_RETURN(std::string_view id, Id(var, r[var]));
        entries.push_back(search::ArmEntry{r[var], s.float_value(), id});
      }
      // A nearest() arm is its `limit` nearest entities; a bm25() arm every entity that matches.
      const bool nearest = arm.kind == IrExprKind::kNearest;
      arms[a] = search::RankArm(std::move(entries), nearest, nearest ? limit : 0);
    }
    std::unordered_map<int64_t, RrfEntry> by_entity;
    int64_t position = 0;
    for (const search::Fused& f : search::FuseRrf(arms[0], arms[1], k)) {
      by_entity.emplace(f.entity, RrfEntry{f.score, position++});
    }
    rrf_[e] = std::move(by_entity);
  }
  return Status::Ok();
}

Result<std::optional<int64_t>> Context::RrfPosition(const IrExpr& e, const int64_t* row) {
  auto it = rrf_.find(&e);
  if (it == rrf_.end()) return InternalError("rrf() ordered before its rows were ranked");
  const int var = e.args[0].args[0].var;
  if (row == nullptr || row[var] < 0) return std::optional<int64_t>();
  auto f = it->second.find(row[var]);
  if (f == it->second.end()) return std::optional<int64_t>();
  return std::optional<int64_t>(f->second.position);
}

}  // namespace omnigraph::engine::exec
