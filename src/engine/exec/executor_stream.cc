// QueryStream (executor.h): the match runs once at Open; the result's values are built per batch.
#include <algorithm>
#include <new>
#include <stdexcept>

#include "common/error_codes.h"
#include "engine/exec/executor.h"
#include "engine/exec/executor_internal.h"

namespace omnigraph::engine {

struct QueryStream::State {
  explicit State(Snapshot s) : snap(std::move(s)) {}
  // Owned here so the context's references stay valid for the stream's life.
  Snapshot snap;
  std::shared_ptr<const void> keep_alive;
  compiler::ParamValues params;
  std::unique_ptr<exec::Context> ctx;
  std::unique_ptr<exec::RowCollector> collected;
  std::vector<size_t> order;  // binding rows in result order (lazy mode)
  QueryResult whole;          // built at Open (aggregates, counts, small results)
  bool lazy = false;
  size_t next = 0;
  uint64_t charged = 0;  // the values of the batch last handed out
};

QueryStream::QueryStream(std::unique_ptr<State> state) : s_(std::move(state)) {}
QueryStream::~QueryStream() = default;

namespace {

// The executor's entry points never throw (executor_run.cc); the same for the stream.
template <typename F>
auto Guarded(uint64_t budget, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status(ErrorCode::kResourceExhausted, "the query ran out of memory (budget " + std::to_string(budget) +
                                                     " bytes); narrow the match or add a limit");
  } catch (const std::length_error&) {
    return Status(ErrorCode::kResourceExhausted, "the query's intermediate result grew past what one process can hold");
  }
}

}  // namespace

Result<std::unique_ptr<QueryStream>> QueryStream::Open(Snapshot snap, std::shared_ptr<const void> keep_alive,
                                                       const compiler::IrQuery& query, compiler::ParamValues params,
                                                       int64_t now_ms, GraphReadCache* cache,
                                                       const ExecOptions& options) {
  if (query.is_mutation) {
    return InvalidArgumentError("'" + query.name + "' is a mutation: run it with ExecuteMutation (`omnigraph mutate`)");
  }
  OG_RETURN_IF_ERROR(exec::CheckRankingLimit(query));
  return Guarded(options.max_memory_bytes, [&]() -> Result<std::unique_ptr<QueryStream>> {
    auto s = std::make_unique<State>(std::move(snap));
    s->keep_alive = std::move(keep_alive);
    s->params = std::move(params);
    s->ctx = std::make_unique<exec::Context>(s->snap, query, s->params, now_ms,
                                             cache != nullptr ? cache : &GraphReadCache::Default(),
                                             options.max_memory_bytes);
    OG_ASSIGN_OR_RETURN(std::optional<QueryResult> counted, exec::RunMatch(*s->ctx, &s->collected));
    constexpr size_t kWholeRows = 64;  // small results read their properties by row (BuildResult)
    if (counted) {
      s->whole = std::move(*counted);
    } else if (query.has_aggregate || s->collected->rows().size() <= kWholeRows) {
      OG_ASSIGN_OR_RETURN(s->whole, exec::BuildResult(*s->ctx, s->collected->rows()));
      s->collected.reset();
    } else {
      OG_ASSIGN_OR_RETURN(s->order, exec::OrderRows(*s->ctx, s->collected->rows(), query.limit));
      for (const auto& p : query.projections) {
        s->whole.columns.push_back(p.name);
        s->whole.types.push_back(p.expr.type);
      }
      s->lazy = true;
    }
    return std::unique_ptr<QueryStream>(new QueryStream(std::move(s)));
  });
}

const std::vector<std::string>& QueryStream::columns() const { return s_->whole.columns; }

uint64_t QueryStream::total_rows() const { return s_->lazy ? s_->order.size() : s_->whole.rows.size(); }

Result<size_t> QueryStream::Next(std::vector<std::vector<Value>>* out, size_t max_rows) {
  out->clear();
  State& s = *s_;
  const size_t total = total_rows();
  if (s.next >= total) return size_t{0};
  const size_t end = std::min(total, s.next + std::max<size_t>(max_rows, 1));
  if (!s.lazy) {
    for (size_t i = s.next; i < end; ++i) out->push_back(std::move(s.whole.rows[i]));
    s.next = end;
    return out->size();
  }
  return Guarded(s.ctx->budget(), [&]() -> Result<size_t> {
    // The batch's values are charged while the caller holds them: the previous batch is released.
    s.ctx->Release(s.charged);
    s.charged = 0;
    const uint64_t bytes = 48 * (end - s.next) * std::max<size_t>(s.whole.columns.size(), 1);
    OG_RETURN_IF_ERROR(s.ctx->Charge(bytes));
    s.charged = bytes;
    out->reserve(end - s.next);
    for (size_t i = s.next; i < end; ++i) {
      OG_ASSIGN_OR_RETURN(std::vector<Value> row, exec::ProjectRow(*s.ctx, s.collected->rows(), s.order[i]));
      out->push_back(std::move(row));
    }
    s.next = end;
    return out->size();
  });
}

}  // namespace omnigraph::engine
