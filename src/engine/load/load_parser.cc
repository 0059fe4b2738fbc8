#include "engine/load/load_parser.h"

#include <algorithm>
#include <cstring>

#include "common/thread_pool.h"
#include "engine/load/load_json.h"

namespace omnigraph::engine {
namespace {

namespace dom = simdjson::dom;

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

// Bytes per parallel task: enough to amortize a task, small enough to balance a chunk's tail
// (16 per default 32 MB chunk). Each piece's rows stay one segment up to the table writer, whose
// pages do not span segments: a piece of a few MB makes whole pages.
constexpr size_t kPieceBytes = size_t{2} << 20;

}  // namespace

LoadParser::LoadParser(std::shared_ptr<const compiler::Catalog> catalog, size_t max_errors, size_t max_record_bytes)
    : catalog_(std::move(catalog)),
      record_parser_(std::make_unique<RecordParser>(*catalog_)),
      max_errors_(max_errors),
      max_record_bytes_(max_record_bytes) {
  groups_.resize(record_parser_->slot_count());
  first_line_.assign(record_parser_->slot_count(), 0);
}

LoadParser::~LoadParser() = default;

void LoadParser::AddError(LoadError error) {
  std::vector<LoadError> one{std::move(error)};
  AddErrors(one);
}

void LoadParser::AddErrors(std::vector<LoadError>& errors) {
  for (auto& e : errors) {
    if (errors_.size() == max_errors_) {
      truncated_ = true;
      break;
    }
    errors_.push_back(std::move(e));
  }
  if (!errors_.empty()) {  // a rejected load keeps no records
    for (auto& g : groups_) g = TypeGroup();
    memory_bytes_ = 0;
  }
}

uint64_t LoadParser::Parse(std::string_view text, uint64_t first_line) {
  // Pieces of about kPieceBytes, cut at line ends; each is split into lines, parsed and numbered
  // (relative to the piece) by one task, and the numbers are rebased once every piece is counted.
  std::vector<std::string_view> ranges;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.size(), pos + kPieceBytes);
    if (end < text.size()) {
      const void* nl = std::memchr(text.data() + end, '\n', text.size() - end);
      end = nl == nullptr ? text.size() : static_cast<size_t>(static_cast<const char*>(nl) - text.data()) + 1;
    }
    ranges.push_back(text.substr(pos, end - pos));
    pos = end;
  }
  std::vector<ParsedPiece> out(ranges.size());
  std::vector<uint64_t> line_counts(ranges.size(), 0);
  const bool parse = !done();
  (void)ThreadPool::Default().ParallelFor(ranges.size(), [&](size_t c) -> Status {
    dom::parser parser;
    ParsedPiece& piece = out[c];
    piece.groups.resize(record_parser_->slot_count());
    const char* p = ranges[c].data();
    const char* const end = p + ranges[c].size();
    uint64_t local = 0;  // 0-based line number within the piece
    for (; p < end; ++local) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) nl = end;
      std::string_view line(p, static_cast<size_t>(nl - p));
      p = nl + 1;
      if (!parse || piece.errors.size() > max_errors_) continue;  // only counting lines
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      if (line.size() > max_record_bytes_) {
        piece.errors.push_back({local, ErrorCode::kResourceExhausted,
                                "the record is " + std::to_string(line.size()) +
                                    " bytes, above the per-record limit of " + std::to_string(max_record_bytes_) +
                                    " bytes (raise it with --max-record-size / LoadOptions::max_record_bytes)"});
        continue;
      }
      // Parsed in place: the text of the following lines (or the chunk's padding) pads it.
      dom::element doc;
      if (auto err = parser.parse(line.data(), line.size(), false).get(doc); err) {
        piece.errors.push_back(
            {local, ErrorCode::kLoadJson, std::string("invalid JSON: ") + simdjson::error_message(err)});
        continue;
      }
      Status s = record_parser_->Parse(doc, local, &piece);
      if (!s.ok()) piece.errors.push_back({local, s.code(), s.message()});
    }
    line_counts[c] = local;
    return Status::Ok();
  });
  // Errors and segments in piece order, renumbered from `first_line`.
  uint64_t base = first_line;
  for (size_t c = 0; c < out.size(); ++c) {
    ParsedPiece& piece = out[c];
    for (auto& e : piece.errors) e.line += base;
    AddErrors(piece.errors);
    for (size_t s = 0; s < piece.groups.size() && !failed(); ++s) {
      if (piece.groups[s] == nullptr || piece.groups[s]->size() == 0) continue;
      TypeSegment segment = piece.groups[s]->Finish();
      for (uint64_t& line : segment.lines) line += base;
      TypeGroup& g = groups_[s];
      if (g.name.empty()) {
        const auto& nodes = catalog_->nodes();
        g.is_edge = s >= nodes.size();
        g.node = g.is_edge ? nullptr : &nodes[s];
        g.edge = g.is_edge ? &catalog_->edges()[s - nodes.size()] : nullptr;
        g.name = g.is_edge ? g.edge->name : g.node->name;
        first_line_[s] = segment.lines.front();
      }
      records_ += segment.size();
      memory_bytes_ += segment.memory_bytes();
      g.Add(std::move(segment));
    }
    piece.groups.clear();
    base += line_counts[c];
  }
  return base - first_line;
}

ParsedLoad LoadParser::Finish() {
  ParsedLoad out;
  out.catalog = catalog_;
  out.errors = std::move(errors_);
  out.errors_truncated = truncated_;
  if (!out.errors.empty()) return out;
  std::vector<size_t> order;
  for (size_t s = 0; s < groups_.size(); ++s) {
    if (!groups_[s].name.empty()) order.push_back(s);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return first_line_[a] < first_line_[b]; });
  for (size_t s : order) out.groups.push_back(std::move(groups_[s]));
  out.records = records_;
  out.memory_bytes = memory_bytes_;
  groups_.clear();
  return out;
}

}  // namespace omnigraph::engine
