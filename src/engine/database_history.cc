// The public embedded API, continued: loads, branches and merges, history, change listing and
// optimize (include/omnigraph/omnigraph.h).
#include <algorithm>
#include <cstdlib>

#include "common/base64.h"
#include "common/json.h"
#include "common/logging.h"
#include "engine/database_internal.h"
#include "engine/derived/optimize.h"
#include "engine/diff/change_feed.h"
#include "engine/load/exporter.h"
#include "engine/load/load_input.h"
#include "engine/load/loader.h"
#include "engine/maintain/check.h"
#include "engine/maintain/cleanup.h"
#include "engine/maintain/compact.h"
#include "engine/merge/merge.h"

namespace omnigraph {

using database_internal::NoThrow;
using database_internal::Resolve;

namespace {

engine::LoadOptions ToEngine(const LoadOptions& o) {
  engine::LoadOptions e;
  e.mode = o.mode;
  e.branch = o.branch;
  e.create_branch_from = o.create_branch_from;
  e.if_commit = o.if_commit;
  e.max_errors = o.max_errors;
  if (o.max_memory_bytes != 0) e.max_memory_bytes = o.max_memory_bytes;
  e.chunk_bytes = o.chunk_bytes;
  e.max_record_bytes = o.max_record_bytes;
  e.progress = o.progress;
  return e;
}

LoadSummary ToSummary(const engine::LoadResult& r) {
  LoadSummary s;
  s.committed = r.write.committed;
  s.commit_id = r.write.commit.id;
  s.version = r.write.seq;
  s.records = r.records;
  s.branch_created = r.write.branch_created;
  for (const auto& [name, t] : r.types) s.types[name] = LoadSummary::TypeStats{t.kind, t.loaded, t.changes};
  return s;
}

BranchInfo ToBranchInfo(std::string_view name, const engine::RefEntry& e) {
  return BranchInfo{std::string(name), e.commit_id, e.seq};
}

engine::ChangeFilter ToEngine(const ChangeFilter& f) {
  engine::ChangeFilter e;
  e.kinds.insert(f.kinds.begin(), f.kinds.end());
  e.types.insert(f.types.begin(), f.types.end());
  e.ops.insert(f.ops.begin(), f.ops.end());
  return e;
}

// A page token of PageCommitChanges: the commit, the filter and how many of its changes earlier
// pages held, as base64 of canonical JSON behind a prefix naming the format. An offset is stable
// because a commit's changes are a pure function of two immutable snapshots and the filter.
constexpr std::string_view kCommitPagePrefix = "ogp1.";

std::string EncodeCommitPageToken(const std::string& commit_id, const engine::ChangeFilter& filter, size_t offset) {
  return std::string(kCommitPagePrefix) +
         Base64Encode(CanonicalJson(Json{{"commit", commit_id}, {"filter", filter.ToJson()}, {"offset", offset}}));
}

// The offset `token` resumes at, if it was made for `commit_id` and `filter`.
Result<size_t> DecodeCommitPageToken(std::string_view token, const std::string& commit_id,
                                     const engine::ChangeFilter& filter) {
  std::string raw;
  if (token.substr(0, kCommitPagePrefix.size()) != kCommitPagePrefix ||
      !Base64Decode(token.substr(kCommitPagePrefix.size()), &raw)) {
    return InvalidArgumentError("invalid page token: not a `commit changes` page token of this version of omnigraph");
  }
  auto j = ParseJson(raw, "page token");
  if (!j.ok() || !j->is_object() || !j->contains("commit") || !(*j)["commit"].is_string() || !j->contains("offset") ||
      !(*j)["offset"].is_number_unsigned() || !j->contains("filter")) {
    return InvalidArgumentError("invalid page token: malformed");
  }
  if ((*j)["commit"].get<std::string>() != commit_id) {
    return InvalidArgumentError("invalid page token: it belongs to the changes of commit " +
                                (*j)["commit"].get<std::string>() + ", not " + commit_id);
  }
  if ((*j)["filter"] != filter.ToJson()) {
    return InvalidArgumentError("invalid page token: it was made with other --kind/--type/--op filters");
  }
  return static_cast<size_t>((*j)["offset"].get<uint64_t>());
}

std::vector<EntityChange> ToPublic(const compiler::Catalog& catalog, const std::vector<engine::EntityChange>& changes) {
  std::vector<EntityChange> out;
  out.reserve(changes.size());
  for (const auto& c : changes) out.push_back(engine::ToPublicChange(catalog, c));
  return out;
}

ChangeBlock ToPublic(const compiler::Catalog& catalog, const engine::ChangeBlock& b) {
  ChangeBlock out;
  out.commit = engine::ToCommitInfo(*b.commit, b.seq > 0 ? std::optional<uint64_t>(b.seq) : std::nullopt);
  out.from_commit_id = b.from_commit_id;
  out.changes = ToPublic(catalog, b.changes);
  return out;
}

}  // namespace

// ---- Loads --------------------------------------------------------------------------------------

namespace {

// A load writes `options.branch`, and creates it from create_branch_from when it is missing.
Status AuthorizeLoad(Database::Impl& impl, const LoadOptions& options) {
  if (!impl.options.authorize_write) return Status::Ok();
  if (options.create_branch_from) {
    OG_ASSIGN_OR_RETURN(std::vector<std::string> live, impl.graph->Branches());
    if (std::find(live.begin(), live.end(), options.branch) == live.end()) {
      OG_RETURN_IF_ERROR(
          database_internal::AuthorizeWrite(impl, "branch_create", *options.create_branch_from, options.branch));
    }
  }
  return database_internal::AuthorizeWrite(impl, "change", options.branch, std::nullopt);
}

}  // namespace

Result<LoadSummary> Database::Load(std::string_view ndjson, const LoadOptions& options) {
  return NoThrow([&]() -> Result<LoadSummary> {
    OG_RETURN_IF_ERROR(AuthorizeLoad(*impl_, options));
    OG_ASSIGN_OR_RETURN(engine::LoadResult r, engine::LoadNdjson(*impl_->graph, ndjson, ToEngine(options)));
    database_internal::AutoCompactAfter(*impl_, options.branch, r.write);
    return ToSummary(r);
  });
}

Result<LoadSummary> Database::Load(std::string_view ndjson, LoadMode mode, std::string_view branch) {
  LoadOptions o;
  o.mode = mode;
  o.branch = std::string(branch);
  return Load(ndjson, o);
}

Result<LoadSummary> Database::LoadFile(const std::string& path, const LoadOptions& options) {
  return NoThrow([&]() -> Result<LoadSummary> {
    OG_RETURN_IF_ERROR(AuthorizeLoad(*impl_, options));
    OG_ASSIGN_OR_RETURN(auto source, engine::OpenLoadFile(path, "data file"));
    OG_ASSIGN_OR_RETURN(engine::LoadResult r, engine::LoadNdjson(*impl_->graph, *source, ToEngine(options)));
    database_internal::AutoCompactAfter(*impl_, options.branch, r.write);
    return ToSummary(r);
  });
}

// ---- Branches -----------------------------------------------------------------------------------

Result<BranchInfo> Database::CreateBranch(std::string_view name, std::string_view from) {
  return NoThrow([&]() -> Result<BranchInfo> {
    OG_RETURN_IF_ERROR(
        database_internal::AuthorizeWrite(*impl_, "branch_create", std::string(from), std::string(name)));
    OG_ASSIGN_OR_RETURN(engine::RefEntry e, impl_->graph->CreateBranch(name, from));
    return ToBranchInfo(name, e);
  });
}

Result<BranchInfo> Database::CreateBranchAtCommit(std::string_view name, std::string_view commit_id) {
  return NoThrow([&]() -> Result<BranchInfo> {
    OG_RETURN_IF_ERROR(database_internal::AuthorizeWrite(*impl_, "branch_create", std::nullopt, std::string(name)));
    OG_ASSIGN_OR_RETURN(engine::RefEntry e, impl_->graph->CreateBranchAtCommit(name, commit_id));
    return ToBranchInfo(name, e);
  });
}

Result<std::vector<std::string>> Database::Branches() {
  return NoThrow([&]() -> Result<std::vector<std::string>> { return impl_->graph->Branches(); });
}

Result<BranchInfo> Database::DeleteBranch(std::string_view name) {
  return NoThrow([&]() -> Result<BranchInfo> {
    OG_RETURN_IF_ERROR(database_internal::AuthorizeWrite(*impl_, "branch_delete", std::nullopt, std::string(name)));
    OG_ASSIGN_OR_RETURN(engine::RefEntry e, impl_->graph->DeleteBranch(name));
    return ToBranchInfo(name, e);
  });
}

Result<MergeResult> Database::Merge(std::string_view source, const MergeOptions& options) {
  return NoThrow([&]() -> Result<MergeResult> {
    OG_RETURN_IF_ERROR(database_internal::AuthorizeWrite(*impl_, "branch_merge", std::string(source), options.target));
    if (options.delete_source) {
      OG_RETURN_IF_ERROR(database_internal::AuthorizeWrite(*impl_, "branch_delete", std::nullopt, std::string(source)));
    }
    engine::MergeOptions o;
    o.source = std::string(source);
    o.target = options.target;
    o.delete_source = options.delete_source;
    std::vector<engine::MergeConflict> conflicts;
    auto r = engine::MergeBranches(*impl_->graph, o, &conflicts);
    MergeResult out;
    if (!r.ok()) {
      if (r.status().code() != ErrorCode::kMergeConflict || conflicts.empty()) return r.status();
      OG_ASSIGN_OR_RETURN(engine::Snapshot target, impl_->graph->Head(options.target));
      out.outcome = MergeOutcome::kConflicts;
      out.commit_id = target.commit().id;
      out.version = target.seq();
      for (const auto& c : conflicts) {
        out.conflicts.push_back(
            MergeConflict{std::string(c.conflict), c.kind, c.type_name, c.entity_id, c.property, c.message});
      }
      return out;
    }
    switch (r->outcome) {
      case engine::MergeOutcome::kAlreadyUpToDate: out.outcome = MergeOutcome::kAlreadyUpToDate; break;
      case engine::MergeOutcome::kFastForward: out.outcome = MergeOutcome::kFastForward; break;
      case engine::MergeOutcome::kMerged: out.outcome = MergeOutcome::kMerged; break;
    }
    out.commit_id = r->commit_id;
    out.version = r->seq;
    out.summary = r->summary;
    out.branch_deleted = r->branch_deleted;
    out.branch_delete_error = r->branch_delete_error;
    return out;
  });
}

// ---- History and changes ------------------------------------------------------------------------

Result<std::vector<CommitInfo>> Database::Commits(std::string_view branch) {
  return NoThrow([&]() -> Result<std::vector<CommitInfo>> {
    OG_ASSIGN_OR_RETURN(auto history, impl_->graph->BranchHistory(branch, SIZE_MAX, 0, /*kept_part=*/true));
    std::vector<CommitInfo> out;
    out.reserve(history.size());
    for (const auto& s : history) {
      out.push_back(engine::ToCommitInfo(*s.commit, s.seq > 0 ? std::optional<uint64_t>(s.seq) : std::nullopt));
    }
    return out;
  });
}

Result<CommitInfo> Database::GetCommit(std::string_view commit_id) {
  return NoThrow([&]() -> Result<CommitInfo> {
    OG_ASSIGN_OR_RETURN(auto c, impl_->graph->LoadCommit(commit_id));
    return engine::ToCommitInfo(*c);
  });
}

Result<ChangeBlock> Database::CommitChanges(std::string_view commit_id, const ChangeFilter& filter) {
  return NoThrow([&]() -> Result<ChangeBlock> {
    OG_ASSIGN_OR_RETURN(engine::ChangeBlock block, engine::CommitChanges(*impl_->graph, commit_id, ToEngine(filter)));
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->AtCommit(commit_id));
    return ToPublic(snap.catalog(), block);
  });
}

Result<CommitChangesPage> Database::PageCommitChanges(std::string_view commit_id,
                                                      const CommitChangesPageRequest& request) {
  return NoThrow([&]() -> Result<CommitChangesPage> {
    if (request.max_changes == 0 || request.max_changes > kMaxChangesPerPage) {
      return InvalidArgumentError("a page holds 1 to " + std::to_string(kMaxChangesPerPage) + " changes, not " +
                                  std::to_string(request.max_changes));
    }
    const engine::ChangeFilter filter = ToEngine(request.filter);
    OG_ASSIGN_OR_RETURN(engine::ChangeBlock block, engine::CommitChanges(*impl_->graph, commit_id, filter));
    const std::string& id = block.commit->id;
    size_t offset = 0;
    if (request.page_token) {
      OG_ASSIGN_OR_RETURN(offset, DecodeCommitPageToken(*request.page_token, id, filter));
      // Tokens are only made while changes remain: a later offset is not one of ours.
      if (offset >= block.changes.size()) {
        return InvalidArgumentError("invalid page token: it points past the changes of commit " + id);
      }
    }
    const size_t end = std::min(block.changes.size(), offset + request.max_changes);
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->AtCommit(id));
    CommitChangesPage page;
    page.block.commit = engine::ToCommitInfo(*block.commit);
    page.block.from_commit_id = block.from_commit_id;
    page.block.changes.reserve(end - offset);
    for (size_t i = offset; i < end; ++i) {
      page.block.changes.push_back(engine::ToPublicChange(snap.catalog(), block.changes[i]));
    }
    if (end < block.changes.size()) page.next_page_token = EncodeCommitPageToken(id, filter, end);
    return page;
  });
}

Result<ChangePage> Database::PollChanges(const ChangePollRequest& request) {
  return NoThrow([&]() -> Result<ChangePage> {
    engine::PollOptions o;
    o.branch = request.branch;
    o.cursor = request.cursor;
    o.start = request.start;
    o.filter = ToEngine(request.filter);
    o.max_commits = request.max_commits;
    OG_ASSIGN_OR_RETURN(engine::PollResult r, engine::PollChanges(*impl_->graph, o));
    OG_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->Head(request.branch));
    ChangePage page;
    for (const auto& b : r.blocks) page.blocks.push_back(ToPublic(head.catalog(), b));
    page.cursor = r.cursor;
    page.caught_up = r.caught_up;
    return page;
  });
}

Result<ChangeBaseline> Database::CaptureChangeBaseline(std::string_view branch, const ChangeFilter& filter,
                                                       const std::function<Status(std::string_view)>& sink) {
  return NoThrow([&]() -> Result<ChangeBaseline> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot head, impl_->graph->Head(branch));
    const engine::ChangeFilter f = ToEngine(filter);
    for (const auto& t : f.types) {
      if (head.commit().tables.count(t) == 0) {
        return NotFoundError("unknown export type '" + t + "': no node or edge type of that name at the head of '" +
                             std::string(branch) + "'");
      }
    }
    // The cursor first: it is cheap, and a failure then leaves the sink untouched.
    OG_ASSIGN_OR_RETURN(std::string cursor, engine::CursorAtHead(*impl_->graph, head, f));
    std::vector<std::string> types;
    for (const auto& [name, table] : head.commit().tables) {
      if (f.Matches(table.kind, name)) types.push_back(name);
    }
    // ExportNdjson reads "no types" as every type; a filter that selects none exports nothing.
    if (!types.empty()) OG_RETURN_IF_ERROR(engine::ExportNdjson(head, types, sink));
    return ChangeBaseline{head.commit().id, std::move(cursor)};
  });
}

Result<DiffResult> Database::Diff(const ReadTarget& from, const ReadTarget& to, const ChangeFilter& filter) {
  return NoThrow([&]() -> Result<DiffResult> {
    OG_ASSIGN_OR_RETURN(engine::Snapshot a, Resolve(*impl_->graph, from));
    OG_ASSIGN_OR_RETURN(engine::Snapshot b, Resolve(*impl_->graph, to));
    // Across a schema change the older commit is carried into the newer schema, which needs it
    // to be an ancestor (then it is its own merge base with the newer one).
    engine::Lineage lineage = engine::Lineage::kUnknown;
    if (a.commit().schema_id != b.commit().schema_id) {
      OG_ASSIGN_OR_RETURN(std::string base, engine::MergeBase(*impl_->graph, a.commit().id, b.commit().id));
      if (base == a.commit().id) lineage = engine::Lineage::kFromIsAncestor;
    }
    OG_ASSIGN_OR_RETURN(auto changes, engine::DiffSnapshots(a, b, ToEngine(filter), lineage));
    return DiffResult{a.commit().id, b.commit().id, ToPublic(b.catalog(), changes)};
  });
}

// ---- Maintenance --------------------------------------------------------------------------------

Result<OptimizeSummary> Database::Optimize(std::string_view branch) {
  return NoThrow([&]() -> Result<OptimizeSummary> {
    engine::CompactGraphOptions co;
    co.branch = std::string(branch);
    co.message = "optimize";
    co.search_indexes = true;  // the index segments in compaction's commit
    OG_ASSIGN_OR_RETURN(engine::GraphCompaction c, engine::CompactGraph(*impl_->graph, co));
    OptimizeSummary out;
    out.branch = std::string(branch);
    out.compacted = std::any_of(c.tables.begin(), c.tables.end(), [](const auto& t) { return t.changed; });
    for (const auto& t : c.tables) {
      out.tables.push_back(OptimizeSummary::Table{t.type_name, t.kind, t.fragments_before, t.fragments_removed,
                                                  t.fragments_added, t.rows_rewritten, t.changed});
    }
    for (const auto& x : c.indexes) {
      out.search_indexes.push_back(
          OptimizeSummary::SearchIndex{x.type_name, x.property, x.kind, x.built, x.rows, x.bytes});
      out.indexed = out.indexed || x.built;
    }
    // The head the compaction made (or found): its derived structures are the ones readers load.
    OG_ASSIGN_OR_RETURN(engine::Snapshot snap, impl_->graph->AtCommit(c.write.commit.id));
    OG_ASSIGN_OR_RETURN(engine::OptimizeResult r, engine::BuildDerivedObjects(snap));
    out.commit_id = snap.commit().id;
    for (const auto& o : r.objects) out.objects.push_back(OptimizeSummary::Object{o.type_name, o.kind, o.built});
    out.built = r.built;
    out.present = r.present;
    return out;
  });
}

Result<CleanupSummary> Database::Cleanup(const CleanupOptions& options) {
  return NoThrow([&]() -> Result<CleanupSummary> {
    if (impl_->options.read_only) return PermissionDeniedError("the database was opened read-only");
    engine::CleanupPolicy policy;
    policy.keep = options.keep;
    policy.older_than_us = options.older_than_us;
    policy.grace_us = options.grace_us;
    policy.confirm = options.confirm;
    OG_ASSIGN_OR_RETURN(engine::GraphCleanup c, engine::CleanupGraph(*impl_->graph, policy));
    CleanupSummary out;
    out.confirmed = c.confirmed;
    out.completed = c.completed;
    out.record_id = c.record_id;
    out.kept_commits = c.kept_commits;
    out.unkept_commits = c.unkept_commits;
    out.kept_objects = c.kept_objects;
    out.young_objects = c.young_objects;
    for (const auto& [kind, n] : c.removed) out.kinds.push_back(CleanupSummary::Kind{kind, n.objects, n.bytes});
    for (const auto& t : c.tables) {
      out.tables.push_back(CleanupSummary::Table{t.type_name, t.table_id, t.kind, t.versions_removed, t.objects_removed,
                                                 t.bytes_removed});
    }
    return out;
  });
}

Result<CheckReport> Database::Check(bool verify_data) {
  return NoThrow([&]() -> Result<CheckReport> {
    engine::CheckOptions o;
    o.verify_data = verify_data;
    OG_ASSIGN_OR_RETURN(engine::GraphCheck c, engine::CheckGraph(*impl_->graph, o));
    CheckReport out;
    out.branches = c.branches;
    out.ref_entries = c.ref_entries;
    out.commits = c.commits;
    out.reclaimed_commits = c.reclaimed_commits;
    out.manifests = c.manifests;
    out.fragments = c.fragments;
    out.deletion_vectors = c.deletion_vectors;
    out.blob_files = c.blob_files;
    out.index_objects = c.index_objects;
    out.bytes_verified = c.bytes_verified;
    out.problems_total = c.problems_total;
    for (auto& p : c.problems) out.problems.push_back(CheckReport::Problem{p.code, p.object, p.message});
    return out;
  });
}

namespace database_internal {

Status AuthorizeWrite(Database::Impl& impl, std::string_view action, std::optional<std::string> branch,
                      std::optional<std::string> target_branch) {
  if (!impl.options.authorize_write) return Status::Ok();
  return impl.options.authorize_write(
      WriteIntent{action, std::move(branch), std::move(target_branch), impl.graph->actor()});
}

void AutoCompactAfter(Database::Impl& impl, const std::string& branch, const engine::WriteResult& write) {
  if (!write.committed || impl.auto_compact_fanout == 0 || impl.options.read_only) return;
  engine::AutoCompactPolicy policy;
  policy.fanout = impl.auto_compact_fanout;
  // The written tables' manifests are cached by the write: deciding costs no request.
  auto snap = impl.graph->AtCommit(write.commit.id);
  if (!snap.ok()) return;
  std::vector<std::string> due;
  for (const auto& [name, counts] : write.commit.summary) {
    auto t = snap->Table(name);
    if (t.ok() && !engine::DueFragments(t->manifest(), policy).empty()) due.push_back(name);
  }
  if (due.empty()) return;
  engine::CompactGraphOptions o;
  o.branch = branch;
  o.automatic = policy;
  o.types = std::move(due);
  o.if_commit = write.commit.id;
  o.message = "automatic compaction";
  auto r = engine::CompactGraph(*impl.graph, o);
  if (!r.ok() && r.status().code() != ErrorCode::kPreconditionFailed) {
    LogWarn("automatic compaction of branch '" + branch + "' skipped: " + r.status().ToString());
  }
}

}  // namespace database_internal
}  // namespace omnigraph
