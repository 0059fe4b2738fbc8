// Internals shared by executor.cc (match pipeline) and executor_output.cc (aggregation, ordering,
// projection). Not part of the engine's interface.
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "compiler/params.h"
#include "compiler/query_ir.h"
#include "engine/derived/read_cache.h"
#include "engine/exec/query_result.h"
#include "engine/exec/value_compare.h"
#include "engine/graph/snapshot.h"
#include "engine/search/text.h"
#include "engine/search/text_index.h"

namespace omnigraph::engine::exec {

// Binding rows, flat: `width` slots per row, each a node ordinal or edge ordinal of the variable's
// table version, -1 while unbound. `bound[v]` is the same for every row.
struct Rows {
  size_t width = 0;
  std::vector<int64_t> cells;
  std::vector<bool> bound;
  // When non-empty, row i stands for mult[i] matches that differ only in the bindings of the
  // collapsed variables (bound in every one of those matches, -1 in the row): count-only queries
  // (RunClauses with count_last) and grouped path counts. Only count($v) may read a collapsed `v`.
  std::vector<uint64_t> mult;
  std::vector<bool> collapsed;  // empty = none
  size_t size() const { return width == 0 ? 0 : cells.size() / width; }
  bool Collapsed(int v) const { return static_cast<size_t>(v) < collapsed.size() && collapsed[v]; }
  const int64_t* row(size_t i) const { return cells.data() + i * width; }
  void Append(const int64_t* r) { cells.insert(cells.end(), r, r + width); }
};

// A path bound by a shortest-path clause (executor_shortest.cc): node ordinals from the clause's
// source to its target (the first of the source's table, the rest of the target's), the edge
// ordinals between them, and the sum of the weights (the hop count when unweighted). Rows hold
// the path's index in its Context.
struct PathValue {
  std::vector<uint32_t> nodes, edges;
  double cost = 0;
};

class Context;
struct ZoneMap;  // below
// Compares the paths of one path variable by their node ids in order (a shorter prefix first):
// the order rows with equal other bindings take. Unbound (-1) first.
class PathNodeIds {
 public:
  PathNodeIds(const std::vector<PathValue>& paths, const TableOrdinals& first, const TableOrdinals& rest)
      : paths_(&paths), first_(&first), rest_(&rest) {}
  int Compare(int64_t x, int64_t y) const;

 private:
  const std::vector<PathValue>* paths_;
  const TableOrdinals* first_;  // the table of a path's first node
  const TableOrdinals* rest_;   // the table of the others
};

// Per-query state: the table versions and cached structures of every variable.
class Context {
 public:
  Context(const Snapshot& snap, const compiler::IrQuery& q, const compiler::ParamValues& params, int64_t now_ms,
          GraphReadCache* cache, uint64_t max_memory_bytes = ~uint64_t{0})
      : snap_(snap), q_(q), params_(params), now_ms_(now_ms), cache_(cache), budget_(max_memory_bytes) {}
  // The context of a `not` block run as a query of its own (BlockQuery): the same snapshot,
  // parameters and cache, charging the parent's budget.
  Context(Context& parent, const compiler::IrQuery& block)
      : snap_(parent.snap_),
        q_(block),
        params_(parent.params_),
        now_ms_(parent.now_ms_),
        cache_(parent.cache_),
        budget_(parent.budget_),
        parent_(&parent) {}

  const compiler::IrQuery& query() const { return q_; }
  const Snapshot& snap() const { return snap_; }
  GraphReadCache& cache() const { return *cache_; }

  Result<const table::TableVersion*> Table(const std::string& type);
  Result<const TableOrdinals*> Ordinals(const std::string& type);
  // nullptr when the table has no such column (a property added later reads as null).
  Result<const format::Column*> Column(const std::string& type, const std::string& column);
  // The ZoneMap of `type`'s column `column` (`c`, from Column) when it is a signed-integer column
  // of at least kMaskRows rows: derived once per version and cached; nullptr otherwise.
  Result<const ZoneMap*> ZonesOf(const std::string& type, const std::string& column, const format::Column* c);
  // The ordinals of `type`'s rows whose property satisfies the tests `tests` (each `column op v`,
  // or `v op column` when constant_left), ascending, through the property's sorted index (`@index`
  // on an integer or date property: table::SortedPositions): the tests that are equalities or
  // ranges on the stored integers (as MaskByColumn compares them) bound one range, and
  // (*used)[i] says which tests it answered. nullopt (scan the column) when no test bounds the
  // range, more than `max_hits` rows may match, or the index's runs have not paid for themselves.
  struct SortedTest {
    compiler::CompareOp op;
    const Value* value;
    bool constant_left = false;
  };
  Result<std::optional<std::vector<uint32_t>>> SortedMatch(const std::string& type, const std::string& property,
                                                           std::span<const SortedTest> tests, uint64_t max_hits,
                                                           std::vector<bool>* used);
  // Records that a test of `property` kept few of `type`'s rows in a pass over its whole column
  // (table::NoteSelectiveScan), when the property has a sorted index.
  Status NoteSelectiveScan(const std::string& type, const std::string& property);
  // A String column's codes per ordinal (GraphReadCache::StringCodesFor): built when `build`,
  // else only when cached; nullptr otherwise.
  Result<std::shared_ptr<const StringCodes>> CodesOf(const std::string& type, const std::string& column, bool build);
  Result<const Csr*> CsrFor(const std::string& edge_type);
  // The endpoint ordinals of every edge of `edge_type` (EdgeEnds), derived from its CSR and cached
  // beside it.
  Result<const EdgeEnds*> EdgeEndsFor(const std::string& edge_type);
  // The same when already derived (this query or the read cache has them); nullptr otherwise,
  // and then nothing is read or derived.
  Result<const EdgeEnds*> CachedEdgeEnds(const std::string& edge_type);
  const std::string& TypeOf(int var) const { return q_.variables[var].type_name; }
  // The id of variable `var`'s binding `ordinal`.
  Result<std::string_view> Id(int var, int64_t ordinal) { return IdOf(TypeOf(var), ordinal); }
  // The id of row `ordinal` of `type`: from its ordinals or point-read ids, else its id column.
  Result<std::string_view> IdOf(const std::string& type, int64_t ordinal);
  // The ordinals of `type` if this query has loaded them (nullptr otherwise; loads nothing).
  const TableOrdinals* LoadedOrdinals(const std::string& type) const;
  // The same, also taking them from the read cache when they are in memory there (never reads).
  const TableOrdinals* CachedOrdinals(const std::string& type);

  // Point access without the ordinals (executor_points.cc): a cold point query must not load a
  // table's whole ordinals. Ordinals are positions in scan order (fragments in manifest order,
  // live rows in row order), so they convert to and from row addresses through the manifest and
  // the deletion vectors of the fragments involved.
  Result<uint64_t> AddressOf(const std::string& type, int64_t ordinal);
  // nullopt when `address` is not a live row of the type's version.
  Result<std::optional<uint32_t>> OrdinalOfAddress(const std::string& type, uint64_t address);
  // The ordinal of the node of `type` with this id, found through the key column's hash index
  // by ranged reads (table::ProbeIds) when the ordinals are not in memory; nullopt when absent.
  Result<std::optional<uint32_t>> FindId(const std::string& type, const std::string& id);
  // The out-lists (`out`) or in-lists of a few nodes of an edge type, read through the edge
  // table's src/dst hash index and the other endpoint table's key index (table::ProbeColumn,
  // ProbeIds) instead of the CSR, when the CSR is neither in memory nor cheap to derive
  // (GraphReadCache::CsrAtHand): a hop from a key in a fresh process, or right after a node write,
  // reads what it touches. Each list is what Csr::OutNodes/OutEdges (InNodes/InEdges) give:
  // (neighbour ordinal, edge ordinal) pairs sorted, edges whose other endpoint is not a live node
  // left out; a neighbour's id binds to the first row holding it, as in a CSR. (The keys are
  // taken as bound: a graph's node ids are unique, since loads and mutations refuse a second row
  // with an id, key_conflict.) nullopt when it does not apply: the CSR at hand, more than
  // kPointAdjacencyKeys keys, more than kPointAdjacencyEdges edges, a store without cheap ranged
  // reads, indexes that leave more than kPointAdjacencyUncovered rows to scan, a probe that fails
  // (a damaged index segment: logged), or after two point reads of these versions (then the CSR
  // is loaded or derived and kept, as a column read by point too often is read whole).
  //
  // First, though, when a CSR of earlier versions is in memory (node deletes and updates since:
  // GraphReadCache::CsrBasisFor), the lists are read from it, translated by id (TranslatedLists),
  // for up to kTranslatedKeys keys; this is not counted as a point read, as it reads nothing.
  static constexpr size_t kPointAdjacencyKeys = 8, kPointAdjacencyEdges = 256, kPointAdjacencyUncovered = 4096;
  static constexpr size_t kTranslatedKeys = 1024;
  struct PointLists {
    struct List {
      std::vector<uint32_t> nodes, edges;
    };
    std::unordered_map<uint32_t, List> lists;  // by key ordinal; a key without edges has none
    const List* Find(uint32_t key) const {
      auto it = lists.find(key);
      return it == lists.end() ? nullptr : &it->second;
    }
  };
  Result<std::optional<PointLists>> PointAdjacency(const std::string& edge_type, bool out,
                                                   std::span<const uint32_t> keys);
  // The lists of `keys` (ordinals of `key_type` in this snapshot) read from `basis`: each key's
  // list by its id, each neighbour (of `other_type`) mapped to this snapshot's ordinal through its
  // row address, or its id when that row is gone, each edge through the basis's remap (deleted
  // edges left out), sorted as a CSR list. nullopt once the lists this query read of the edge
  // type hold more entries than a pass over the arrays would cost (about edges / 64).
  Result<std::optional<PointLists>> TranslatedLists(const GraphReadCache::CsrBasis& basis, const std::string& edge_type,
                                                    bool out, std::span<const uint32_t> keys,
                                                    const std::string& key_type, const std::string& other_type);
  // A point-read id (PrefetchPoints of a whole-node expression or of ordering ties), if any.
  std::optional<std::string_view> PointId(const std::string& type, int64_t ordinal) const;
  // Reads the ids of `ordinals` of `type` by address unless its ordinals or id column are in
  // memory (OrderRows' ties of a few rows).
  Status PrefetchIds(const std::string& type, std::vector<int64_t> ordinals);
  // For a few result rows: reads the values of the node-property expressions `exprs` for the
  // bindings in `rows` (rows `which` only) by row address (ranged reads of those rows), unless the
  // whole column is cached already, so a point query does not read whole columns. Eval then
  // answers those bindings from them.
  Status PrefetchPoints(const std::vector<const compiler::IrExpr*>& exprs, const Rows& rows,
                        std::span<const size_t> which);

  // Evaluates an expression for one binding row (`row` may be nullptr for constant expressions).
  Result<Value> Eval(const compiler::IrExpr& e, const int64_t* row);
  // The search and ranking functions (executor_search.cc): search, fuzzy, match_text (Bool),
  // nearest (squared L2 distance), bm25 (score; statistics over every row of the type), rrf
  // (fused score, after PrepareRrf).
  Result<Value> EvalSearch(const compiler::IrExpr& e, const int64_t* row);
  // A text filter (search, match_text, fuzzy) with a constant query on a node property: the
  // rows of the property's type it keeps, one bit per ordinal, from the column's index (built
  // when `build`, else only if cached). nullptr when the filter is not of that form or there is
  // no index.
  static bool TextIndexable(const compiler::IrExpr& e);
  Result<const std::vector<bool>*> TextMatchSet(const compiler::IrExpr& e, bool build);
  // nearest(): the distance of each row of `rows` (NaN for a row without a vector), in one pass.
  // `top` (the ranking is the first ordering and keeps this many rows): when the property's table
  // has an ANN segment and the rows are many, only rows among the index's candidates (and of
  // fragments it does not cover) get a distance, computed exactly; the rest are NaN (ranked out).
  // Falls back to every row when fewer than `top` rows would be ranked.
  Status NearestDistances(const compiler::IrExpr& e, const Rows& rows, std::vector<double>* out,
                          std::optional<uint64_t> top = std::nullopt);
  // The text index of a version from its persisted segment `seg` (TextIndexFor).
  Result<search::TextIndex> TextIndexFromSegment(
      const table::TableVersion& tv, const table::IndexSegmentMeta& seg, const TableOrdinals& ord,
      const std::function<std::optional<std::string_view>(uint32_t)>& text_of);
  // nearest()'s query vector (a parameter or literal, or a String embedded now), checked against
  // the property's dimension; computed once per query.
  Result<const std::vector<float>*> NearestQuery(const compiler::IrExpr& e);
  // The ordinals among `ordinals` (ascending, distinct) a `top` nearest() ranking needs to look at:
  // those the property's ANN segment proposes, plus every one of fragments the segment does not
  // cover; ascending. nullopt when the index does not apply: no segment, under kAnnMinRows
  // ordinals or under 1/kAnnMinShare of the type, a damaged object (logged), or fewer than `top`
  // candidates with a vector (a filter left too few: rank every row exactly).
  Result<std::optional<std::vector<uint32_t>>> AnnCandidates(const compiler::IrExpr& e,
                                                             std::span<const uint32_t> ordinals, uint64_t top);
  // The ANN half of NearestDistances: false when AnnCandidates does not apply.
  Result<bool> AnnDistances(const compiler::IrExpr& e, const Rows& rows, const std::vector<float>& query,
                            const format::Column& col, uint64_t top, std::vector<double>* out);
  // bm25(): the score of every row of the field's type.
  Result<const std::vector<double>*> Bm25Of(const compiler::IrExpr& e);
  // Ranks every rrf() of the query over `rows` (its arms over the entities these rows bind); rrf
  // values and positions answer from this until the next call.
  Status PrepareRrf(const Rows& rows);
  // An rrf() row's place in the fused order (0 = best); nullopt when its entity is in neither arm.
  Result<std::optional<int64_t>> RrfPosition(const compiler::IrExpr& e, const int64_t* row);
  static bool IsConstant(const compiler::IrExpr& e);

  // Paths (executor_shortest.cc): AddPath keeps one for this query (charged to the budget) and
  // returns the index rows hold; EvalPath answers length/nodes/edges/cost of a row's path.
  Result<int64_t> AddPath(PathValue p);
  Result<Value> EvalPath(const compiler::IrExpr& e, const int64_t* row);
  // The comparator of path variable `var`'s paths (PathNodeIds).
  Result<PathNodeIds> PathIds(int var);

  // The query's memory budget (ExecOptions::max_memory_bytes): Charge adds `bytes` held by the
  // query's rows and fails with `resource_limit` past the budget (nothing is charged then);
  // Release gives them back.
  Status Charge(uint64_t bytes);
  void Release(uint64_t bytes) {
    if (parent_ != nullptr) return parent_->Release(bytes);
    used_ -= std::min(used_, bytes);
  }
  uint64_t budget() const { return budget_; }
  // A grouped count over every node of one type with nothing else matched (RunMatch): no binding
  // rows are made; the aggregate counts ordinals 0..rows-1 of `var` itself (Aggregate).
  struct Scan {
    int var = -1;
    size_t rows = 0;
  };
  void SetScan(Scan scan) { scan_ = scan; }
  const std::optional<Scan>& scan() const { return scan_; }

 private:
  const Snapshot& snap_;
  const compiler::IrQuery& q_;
  const compiler::ParamValues& params_;
  int64_t now_ms_;
  GraphReadCache* cache_;
  uint64_t budget_;
  std::optional<Scan> scan_;
  uint64_t used_ = 0;
  Context* parent_ = nullptr;  // a block's context charges its parent
  std::vector<PathValue> paths_;
  // The shortest-path clause binding path variable `var` (nullptr when none).
  const compiler::IrClause* PathClause(int var) const;
  std::map<std::string, table::TableVersion> tables_;
  std::map<std::string, std::shared_ptr<const TableOrdinals>> ordinals_;
  std::map<std::string, std::shared_ptr<const format::Column>> columns_;  // "type\x1fcolumn"
  std::map<std::string, std::shared_ptr<const Csr>> csrs_;
  std::map<std::string, std::shared_ptr<const EdgeEnds>> edge_ends_;
  // The column of each property expression evaluated so far (per-row evaluation skips the
  // name-keyed lookup above; the IR outlives the context).
  std::unordered_map<const compiler::IrExpr*, const format::Column*> expr_columns_;
  // Values read by PrefetchPoints: expression -> binding ordinal -> value.
  std::unordered_map<const compiler::IrExpr*, std::unordered_map<int64_t, Value>> point_values_;
  // Ids read by PrefetchIds: type -> ordinal -> id.
  std::map<std::string, std::unordered_map<int64_t, std::string>> point_ids_;
  // Per type: live rows before each fragment (manifest order) and the sorted deleted rows of the
  // fragments AddressOf / OrdinalOfAddress looked at.
  struct RowMap {
    std::vector<uint64_t> live_before;                          // one per fragment, then the total
    std::unordered_map<size_t, std::vector<uint32_t>> deleted;  // by fragment index
  };
  std::map<std::string, RowMap> row_maps_;
  // List entries TranslatedLists read per edge type in this query (its budget is per query, so
  // that many small batches do not add up to more than deriving the CSR once).
  std::map<std::string, uint64_t> translated_;
  std::map<std::string, std::shared_ptr<const ZoneMap>> zones_;  // ZonesOf, by type + column
  Result<RowMap*> RowMapFor(const std::string& type);
  Result<const std::vector<uint32_t>*> DeletedRows(const std::string& type, RowMap& map, size_t fragment);
  // Search state per expression (executor_search.cc): analyzed query text, the BM25 score of
  // every row of the type, the query vector, rrf's fused order by entity.
  std::unordered_map<const compiler::IrExpr*, std::vector<search::Token>> text_queries_;
  // A text filter is tested row by row until it has seen kRowsBeforeIndex rows in this query (or
  // its column's index is cached already); then against the matching set the index gives.
  std::unordered_map<const compiler::IrExpr*, uint64_t> text_rows_;
  std::unordered_map<const compiler::IrExpr*, std::vector<bool>> text_matches_;
  std::map<std::string, std::shared_ptr<const search::TextIndex>> text_indexes_;  // "type\x1fproperty"
  Result<const search::TextIndex*> TextIndexFor(const std::string& type, const std::string& property, bool build);
  std::unordered_map<const compiler::IrExpr*, std::vector<double>> bm25_;
  std::unordered_map<const compiler::IrExpr*, std::vector<float>> query_vectors_;
  struct RrfEntry {
    double score;
    int64_t position;
  };
  std::unordered_map<const compiler::IrExpr*, std::unordered_map<int64_t, RrfEntry>> rrf_;
};

// Bytes held by binding rows (the cells and multiplicities).
inline uint64_t RowBytes(const Rows& r) { return 8 * (r.cells.size() + r.mult.size()); }

// Holds a charge on the context's budget for as long as it lives.
class BudgetCharge {
 public:
  explicit BudgetCharge(Context& ctx) : ctx_(ctx) {}
  ~BudgetCharge() { ctx_.Release(bytes_); }
  BudgetCharge(const BudgetCharge&) = delete;
  BudgetCharge& operator=(const BudgetCharge&) = delete;
  // Charges `bytes` more; on failure nothing more is held.
  Status Add(uint64_t bytes) {
    OG_RETURN_IF_ERROR(ctx_.Charge(bytes));
    bytes_ += bytes;
    return Status::Ok();
  }
  // Holds exactly `bytes` from now on.
  Status Set(uint64_t bytes) {
    ctx_.Release(bytes_);
    bytes_ = 0;
    return Add(bytes);
  }

 private:
  Context& ctx_;
  uint64_t bytes_ = 0;
};

// Where the match pipeline hands finished binding rows: the query's collector, a top-k
// selection, or an anti-join's set of matched rows. Rows of one run arrive in batches; all have
// the same width, bound and collapsed flags.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual Status Add(Rows rows) = 0;
  // True once no further row can change the outcome (an ordered producer then stops).
  virtual bool Done() const { return false; }
  // A hint: at most about `rows` more rows will arrive, in pieces (a seed with nothing after it).
  virtual void ExpectRows(size_t /*rows*/) {}
};

// The query's rows (executor_output.cc): every row, or — with `keep` — only the best `keep` in
// the result's order (OrderRows), pruned as batches arrive so a `limit` never holds the whole
// match. With `stop_at_keep` rows arrive in the result's order (RunMode::ordered) and the run
// may stop once `keep` rows exist. Charges what it holds to the context's budget.
class RowCollector final : public RowSink {
 public:
  RowCollector(Context& ctx, size_t width, std::optional<uint64_t> keep = std::nullopt, bool stop_at_keep = false);
  Status Add(Rows rows) override;
  bool Done() const override { return stop_ && keep_ && rows_.size() >= *keep_; }
  // Room for them is made once, instead of regrowing (and copying) the rows piece after piece.
  void ExpectRows(size_t rows) override { expect_ = rows; }
  const Rows& rows() const { return rows_; }
  // Only count the matches (their multiplicities), keeping no row.
  void CountOnly() { count_only_ = true; }
  uint64_t count() const { return count_; }

 private:
  Status Prune();

  Context& ctx_;
  std::optional<uint64_t> keep_;
  bool stop_;
  bool count_only_ = false;
  uint64_t count_ = 0;
  size_t expect_ = 0;
  Rows rows_;
  BudgetCharge charge_;
};

// A `not` block as a query of its own (executor_negation.cc): its variables renumbered densely,
// the outer ones it reads first (`outer`: their numbers in the enclosing clause list), then its
// local ones, so that an anti-join's probe rows hold only what the block needs.
struct BlockQuery {
  compiler::IrQuery query;  // variables and clauses only
  std::vector<int> outer;
};
// `visible`: the variables bound where the block is (by the enclosing clauses or their seed).
BlockQuery NegationQuery(const compiler::IrQuery& q, const compiler::IrClause& neg, const std::vector<bool>& visible);
// Adds every variable `e` reads (properties and variables, recursively) to `out`.
void ExprVars(const compiler::IrExpr& e, std::set<int>* out);
// The variables `clauses` bind (bindings and traversals), as flags over `width` slots.
std::vector<bool> BoundByClauses(const std::vector<compiler::IrClause>& clauses, size_t width);

// True when the query uses rrf() (in return or order): its ranks need every row, so a limit
// cannot prune rows as they arrive.
bool UsesRrf(const compiler::IrQuery& q);
// resource_limit when a nearest() or rrf() ordering asks for more rows than a ranking returns.
Status CheckRankingLimit(const compiler::IrQuery& q);

// Keeps the `ordinals` whose value in column `c` (by ordinal; nullptr = the property is absent,
// null everywhere) satisfies `column op v`, or `v op column` when `constant_left`: exactly
// CompareValues on the row's value, typed for scalar columns (no Value per row).
void FilterByColumn(const format::Column* c, compiler::CompareOp op, const Value& v, bool constant_left,
                    std::vector<uint32_t>* ordinals);

// One FilterByColumn test of a variable's candidates: test `test` of the variable's list.
struct ColumnFilter {
  size_t test = 0;
  const format::Column* column = nullptr;
  compiler::CompareOp op;
  Value value;
  bool constant_left = false;
  std::string property;  // the column's name (its zone map, Context::ZonesOf)
};
// Puts `filters` in the order to run them over rows 0..n-1 of their table: when the rows are many,
// the test with the lowest estimated cost per row it drops first (its share dropped estimated on
// an evenly spaced sample of the rows); else equalities first. executor_expand.cc.
void OrderColumnTests(size_t n, std::vector<ColumnFilter>* filters);
// From this many rows, a table's leading integer tests run as MaskByColumn passes (Candidates).
constexpr size_t kMaskRows = size_t{1} << 16;

// Clears the bytes of `mask` (one per row of column `c`) whose row does not satisfy
// `column op v` (`v op column` when `constant_left`), as FilterByColumn decides it, in one typed
// pass over the column. False (mask untouched) for a column or constant it does not handle
// (Strings, floats, mixed representations, contains/starts_with): use FilterByColumn then.
//
// With `zones` (ZoneMap::Of of the same column), a block whose smallest and largest values decide
// the test for every row is cleared or kept without reading its values.
struct ZoneMap;
bool MaskByColumn(const format::Column* c, compiler::CompareOp op, const Value& v, bool constant_left,
                  std::vector<uint8_t>* mask, const ZoneMap* zones = nullptr);

// The bytes of a mask (each 0 or 1) that are 1: eight at a time (no popcount instruction assumed).
inline uint64_t CountKeptBytes(const std::vector<uint8_t>& mask) {
  uint64_t n = 0;
  size_t i = 0;
  for (; i + 8 <= mask.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, mask.data() + i, 8);
    n += (w * 0x0101010101010101ull) >> 56;
  }
  for (; i < mask.size(); ++i) n += mask[i];
  return n;
}

// Page statistics of a cached signed-integer column (I32, I64, Date, DateTime): the smallest and
// largest non-null value of each block of kBlock rows (an all-null block: min > max). Derived
// once per column version (Context::ZonesOf) for large tables; on data laid down in order of a
// value (event times appended as they happen) a range or equality test then reads only the blocks
// that can match. On unordered values every block is read, as without.
struct ZoneMap {
  static constexpr size_t kBlock = 4096;
  std::vector<int64_t> min, max;
  uint64_t memory_bytes() const { return 16 * min.capacity() + 64; }
  // nullopt for a column of another kind.
  static std::optional<ZoneMap> Of(const format::Column& c);
};

// One traversal of a path chain: from the previous link's new variable (the first link: from a
// bound one) into a fresh variable that nothing but the chain mentions.
// Which edge ordinals an edge variable's tests keep: one byte each (1 = kept).
using EdgeMask = std::vector<uint8_t>;

// A link with an edge variable (which only count() reads, or nothing) matches once per edge:
// parallel edges count separately, and `allowed` (the variable's property tests, by edge ordinal;
// nullptr = every edge) drops edges.
struct PathLink {
  const compiler::IrClause* t;
  bool forward;                       // from t->src to t->dst
  const EdgeMask* allowed = nullptr;  // edge links only
};
inline bool EdgeAllowed(const EdgeMask* allowed, uint32_t e) {
  return allowed == nullptr || (e < allowed->size() && (*allowed)[e]);
}

// Breadth-first reach with the reference's distance semantics (docs/language.md, "Match clauses"),
// with its scratch reused across calls (executor_paths.cc). Not thread-safe.
class Reacher {
 public:
  // The nodes traversal `t` produces from `x` (its source when `forward`, else its destination),
  // sorted and distinct.
  // Thread-safe (its per-node state is the calling thread's); costs what it reaches.
  Result<std::vector<uint32_t>> Reach(const Csr& csr, uint32_t x, bool forward, const compiler::IrClause& t);
};

// The matches of `chain` from every row (memoized per node and level), summed into one row's
// multiplicity: no row per match is built; the chain's variables stay unbound.
Result<Rows> CountChain(Context& ctx, Rows rows, const std::vector<PathLink>& chain, Reacher* reacher);

// The matches of a one-link edge chain (with an edge variable) from each of the `start_nodes`
// nodes of its start table once: the edges its tests keep. nullopt when `start_nodes` is not the
// whole start table or the CSR does not hold every edge of the table.
Result<std::optional<uint64_t>> EdgesKept(Context& ctx, const PathLink& link, size_t start_nodes);

// Whether no variable the chain introduces is read (only counted, or not at all).
bool ChainUnread(const std::vector<PathLink>& chain, const std::vector<bool>& read);
// The matches of `chain` per row when ChainUnread: each row kept once (rows without a match
// dropped), its multiplicity times its number of matches, every variable of the chain collapsed
// (e.g. `$a knows $b` grouped by $a, counting $b: one row per $a, its distinct out-neighbours).
Result<Rows> CountPerRow(Context& ctx, Rows rows, const std::vector<PathLink>& chain, Reacher* reacher);

// The matches of `chain` per node of its last variable, counted level by level over a weighted
// frontier instead of enumerated: one row per (row, end node) with the number of matches as its
// multiplicity (Rows::mult); the chain's inner variables are collapsed. When `read` marks none of
// the rows' bound variables, all rows share one frontier and those variables are collapsed too.
// Whether PathCounts applies to `chain` and pays: the inner variables are not read, and the chain
// has several links or the rows share one frontier.
bool PathCountable(const Rows& rows, const std::vector<PathLink>& chain, const std::vector<bool>& read);
Result<Rows> PathCounts(Context& ctx, Rows rows, const std::vector<PathLink>& chain, const std::vector<bool>& read,
                        Reacher* reacher);

// Binds the path variable of shortest-path clause `t` in every row of `rows` (both endpoints
// bound): rows whose endpoints no path joins are dropped; all_shortest gives one row per path
// (executor_shortest.cc).
Result<Rows> ShortestPaths(Context& ctx, const Rows& rows, const compiler::IrClause& t);

// Codes for the grouping keys of an aggregating query whose keys are all properties (none an
// identity: `id` or a node's single @key) with an integer, Bool, Date, DateTime or String column,
// read from the columns without building a Value per row (executor_group_keys.cc). Equal codes
// mean equal values (typed equality; null and unbound are code 0), so rows are grouped by their
// codes: one group per distinct key tuple instead of one per binding.
class KeyCoder {
 public:
  // nullopt when a key does not qualify (the caller groups by bindings).
  // `rows`: how many binding rows will be coded. A String key reads the column's cached codes
  // (GraphReadCache::StringCodesFor), built first when the rows cover a good share of the table.
  static Result<std::optional<KeyCoder>> For(Context& ctx, size_t rows);
  size_t width() const { return keys_.size(); }
  // The number of codes handed out so far for key `k` (codes are 1..that; 0 = null).
  int64_t distinct(size_t k) const { return keys_[k].codes.size; }
  // The codes of binding row `row`, one per key, into `out`.
  void Code(const int64_t* row, int64_t* out);
  // Whether every key has codes that mean the same in every copy of this coder: a String key
  // with the column's cached codes, or a non-String key (its value is its code).
  bool canonical() const;
  // The codes of the only key when it is a String key with cached codes (its variable in `*var`);
  // nullptr otherwise. A row's code is then `code[ordinal]` (0 when unbound or null).
  // For two keys of which one has codes with a known bound (cached String codes, or a dense
  // integer key): that key's index in `*key` and one more than its largest code; 0 otherwise.
  uint64_t dict_bound(size_t* key) const {
    if (keys_.size() != 2) return 0;
    for (size_t k = 0; k < 2; ++k) {
      if (keys_[k].dict != nullptr || keys_[k].dense_bound > 0) {
        *key = k;
        return keys_[k].dict != nullptr ? uint64_t{keys_[k].dict->distinct} + 1 : keys_[k].dense_bound;
      }
    }
    return 0;
  }
  const StringCodes* single_dict(int* var) const {
    if (keys_.size() != 1 || keys_[0].dict == nullptr) return nullptr;
    *var = keys_[0].var;
    return keys_[0].dict.get();
  }
  // Whether every key's code of an ordinal is one load: cached String codes, or a dense integer
  // key of a 32- or 64-bit signed column without nulls (DirectCode).
  bool direct() const {
    for (const Key& key : keys_) {
      if (key.dict == nullptr && key.i64 == nullptr && key.i32 == nullptr) return false;
    }
    return true;
  }
  // One more than key k's largest code when it is known (cached String codes, a dense key); else 0.
  uint64_t code_bound(size_t k) const {
    const Key& key = keys_[k];
    return key.dict != nullptr ? uint64_t{key.dict->distinct} + 1 : key.dense_bound;
  }
  // Key k's code of ordinal o when direct(): the same as Code's.
  int64_t DirectCode(size_t k, size_t o) const {
    const Key& key = keys_[k];
    if (key.dict != nullptr) return key.dict->code[o];
    return (key.i64 != nullptr ? key.i64[o] : int64_t{key.i32[o]}) - key.dense_min + 1;
  }
  // Those codes of binding row `row`: two per key (1 and the code, or 0 and 0 for null) into `out`.
  void Canonical(const int64_t* row, int64_t* out) const;

 private:
  // Dense codes (1, 2, ...) of the distinct values seen: open addressing over (hash, code) with
  // the value itself (a String's view into the column, or an integer) to compare.
  struct Codes {
    struct Slot {
      uint64_t hash = 0;
      int64_t code = 0;  // 0 = empty
      int64_t value = 0;
      std::string_view text;
    };
    std::vector<Slot> slots = std::vector<Slot>(64);
    int64_t size = 0;
    int64_t Code(uint64_t hash, int64_t value, std::string_view text, bool is_text);
  };
  struct Key {
    int var = -1;
    const format::Column* column = nullptr;  // nullptr: the property is absent (all null)
    TypeKind kind = TypeKind::kString;
    Codes codes;
    std::shared_ptr<const StringCodes> dict;  // a String column's codes per ordinal, when cached
    // An integer column whose values span fewer than kDenseSpan: code = value - dense_min + 1, at
    // most dense_bound - 1 (no hashing). dense_bound 0: hashed codes.
    int64_t dense_min = 0;
    uint64_t dense_bound = 0;
    // A dense key without nulls: its column's values, one of these by kind (DirectCode).
    const int64_t* i64 = nullptr;
    const int32_t* i32 = nullptr;
  };
  static constexpr uint64_t kDenseSpan = uint64_t{1} << 16;
  static int64_t Raw(TypeKind kind, const format::Column& c, size_t i);  // a non-String key's value
  // The smallest and largest value of a non-String column (as Raw reads them); any: not all null.
  struct ValueSpan {
    int64_t min = 0;
    int64_t max = 0;
    bool any = false;
    uint64_t memory_bytes() const { return 64; }
    static ValueSpan Of(TypeKind kind, const format::Column& c);
  };
  std::vector<Key> keys_;
};

// For an aggregating query: the variables whose bindings its result reads (grouping keys, aggregate
// arguments, order keys) other than through count($v), which only needs $v bound.
std::vector<bool> ReadVariables(const compiler::IrQuery& q);

// How RunClauses produces rows.
struct RunMode {
  // The caller only counts rows: a final one-variable traversal nothing else depends on is
  // counted, not expanded.
  bool count_last = false;
  // The caller aggregates, reading only these variables: a final chain of traversals whose inner
  // variables are not read is counted per end node (PathCounts). Either way the rows then carry
  // multiplicities (Rows::mult).
  const std::vector<bool>* read = nullptr;
  // Bind the variables in index order, each one's candidates in id order, so that rows reach the
  // sink in the result's total order (ties broken by ids in binding order) and the sink may stop
  // the run early. Edge variables are bound in that order too: a traversal runs only when the
  // variables it binds come next (Pipeline::OrderedStep). Not with shortest paths (OrderedApplies).
  bool ordered = false;
};

// Runs the clauses over `seed` (match pipeline; executor.cc), handing the matches to `sink` in
// batches of bounded size.
Status RunClauses(Context& ctx, const std::vector<compiler::IrClause>& clauses, Rows seed, RowSink& sink,
                  const RunMode& mode = {});
// Whether an ordered run (RunMode::ordered) applies to the top-level clauses and pays: no shortest
// path, each edge variable bindable in order, and the planner would seed the first variable anyway.
Result<bool> OrderedApplies(Context& ctx, const std::vector<compiler::IrClause>& clauses, const Rows& seed);

// The rows of a non-aggregating query in the result's order (order keys, then ids of the
// top-level variables in binding order), cut to `limit` (executor_output.cc).
Result<std::vector<size_t>> OrderRows(Context& ctx, const Rows& rows, std::optional<uint64_t> limit);

// The binding of variable `var` in row i: of `rows`, or, with no rows (a scan of one table), the
// ordinal i itself.
struct RowCell {
  const Rows* rows = nullptr;
  int64_t operator()(size_t i, int var) const { return rows != nullptr ? rows->row(i)[var] : static_cast<int64_t>(i); }
};
// The rows (of n) an ordering with a limit must build keys for, when its first keys are String or
// integer properties and the rows are many: key by key, those better than the limit-th best value
// are kept and those tied with it go on to the next key; the rows still tied when the keys run out
// (or reach one the cut cannot compare: another kind, a null, an unbound variable) are kept too.
// Empty: every row (not applicable). executor_shortlist.cc.
constexpr size_t kShortlistRows = 1024;
Result<std::vector<uint8_t>> Shortlist(Context& ctx, size_t n, std::optional<uint64_t> limit,
                                       const std::vector<bool>& desc, const RowCell& cell);

// Aggregation, ordering, limit and projection of the matched rows (executor_output.cc).
Result<QueryResult> BuildResult(Context& ctx, const Rows& rows);
// One result row: the projections of binding row `i` (a query without aggregates).
Result<std::vector<Value>> ProjectRow(Context& ctx, const Rows& rows, size_t i);

// Runs the match of ctx.query() (executor_run.cc): a count-only query returns its one-row result;
// any other leaves its binding rows in `*out` (every row, or the best `limit` under a limit).
Result<std::optional<QueryResult>> RunMatch(Context& ctx, std::unique_ptr<RowCollector>* out);

}  // namespace omnigraph::engine::exec
