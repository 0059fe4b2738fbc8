#include "engine/maintain/check.h"

#include "engine/search/text_index.h"
#include "engine/search/vector_index.h"

#include <set>

#include "common/error_codes.h"
#include "common/mutex.h"
#include "common/thread_pool.h"
#include "engine/graph/graph_layout.h"
#include "engine/graph/reclaim.h"
#include "engine/search/vector_index.h"
#include "format/blob_file.h"
#include "format/deletion_vector.h"
#include "format/fragment_reader.h"
#include "table/id_index.h"
#include "table/manifest.h"
#include "table/table_layout.h"

namespace omnigraph::engine {
namespace {

// Collects problems from worker threads.
class Problems {
 public:
  Problems(GraphCheck* out, size_t max) : out_(out), max_(max) {}
  void Add(std::string object, const Status& s) {
    MutexLock lock(&mu_);
    out_->problems_total++;
    if (out_->problems.size() < max_) {
      out_->problems.push_back(CheckProblem{std::string(s.code_string()), std::move(object), s.message()});
    }
  }

 private:
  Mutex mu_;
  GraphCheck* out_;
  size_t max_;
};

// One data object a kept manifest names, to verify.
struct DataObject {
  enum Kind { kFragment, kDeletion, kBlob, kIndex, kVectorIndex, kTextIndex } kind;
  std::string key;
  uint64_t file_size = 0;  // fragments: from the manifest
  uint64_t tail_size = 0;
  uint64_t rows = 0;  // fragments: physical rows; deletion vectors: deleted rows; vector indexes: dimension
};

Status VerifyObject(io::ObjectStore& store, const DataObject& o, uint64_t* bytes) {
  switch (o.kind) {
    case DataObject::kFragment: {
      format::FragmentOpenOptions fo;
      fo.file_size = o.file_size;
      fo.tail_size_hint = o.tail_size;
      OG_ASSIGN_OR_RETURN(auto reader, format::FragmentReader::Open(store, o.key, fo));
      OG_RETURN_IF_ERROR(reader->Verify());
      if (reader->num_rows() != o.rows) {
        return CorruptError(o.key + " holds " + std::to_string(reader->num_rows()) + " rows; its manifest says " +
                            std::to_string(o.rows));
      }
      *bytes = reader->file_size();
      return Status::Ok();
    }
    case DataObject::kDeletion: {
      OG_ASSIGN_OR_RETURN(std::string b, store.Get(o.key));
      *bytes = b.size();
      OG_ASSIGN_OR_RETURN(format::DeletionVector dv, format::DeletionVector::Deserialize(b, o.key));
      if (dv.cardinality() != o.rows) {
        return CorruptError(o.key + " deletes " + std::to_string(dv.cardinality()) + " rows; its manifest says " +
                            std::to_string(o.rows));
      }
      return Status::Ok();
    }
    case DataObject::kBlob: {
      OG_ASSIGN_OR_RETURN(std::string b, store.Get(o.key));
      *bytes = b.size();
      return format::BlobFileReader::Verify(b, o.key);
    }
    case DataObject::kIndex: {
      OG_ASSIGN_OR_RETURN(std::string b, store.Get(o.key));
      *bytes = b.size();
      return table::IdSegment::Parse(std::move(b), o.key).status();
    }
    case DataObject::kTextIndex: {
      OG_ASSIGN_OR_RETURN(std::string b, store.Get(o.key));
      *bytes = b.size();
      return search::TextIndex::Decode(b, o.key).status();
    }
    case DataObject::kVectorIndex: {
      OG_ASSIGN_OR_RETURN(std::string b, store.Get(o.key));
      *bytes = b.size();
      return search::VectorIndex::Decode(b, static_cast<uint32_t>(o.rows), o.key).status();
    }
  }
  return InternalError("unknown object kind");
}

}  // namespace

Result<GraphCheck> CheckGraph(Graph& graph, const CheckOptions& options) {
  GraphCheck out;
  Problems problems(&out, options.max_problems);
  io::ObjectStore& store = graph.store();
  RefLog refs(store);
  OG_ASSIGN_OR_RETURN(std::vector<std::string> branches, refs.AllBranches());
  auto records = CleanupRecords(store);
  if (!records.ok()) problems.Add(std::string(kAuditPrefix), records.status());
  const std::vector<CleanupRecord> cleanups = records.ok() ? *records : std::vector<CleanupRecord>{};

  // Ref logs and the commits they name (with parents: every ancestor must exist).
  std::set<std::string> commits, todo;
  for (const std::string& branch : branches) {
    out.branches++;
    // The head as readers find it (the hint, the entry it names, its link): catches a truncated log.
    auto head = refs.ReadHead(branch);
    if (!head.ok()) problems.Add(RefFolder(branch), head.status());
    auto entries = refs.Entries(branch);
    if (!entries.ok()) {
      if (head.ok()) problems.Add(RefFolder(branch), entries.status());
      continue;
    }
    for (const RefEntry& e : *entries) {
      out.ref_entries++;
      if (!e.commit_id.empty()) todo.insert(e.commit_id);
    }
  }
  std::set<std::pair<std::string, std::string>> manifests;  // (table prefix, version id)
  while (!todo.empty()) {
    std::string id = *todo.begin();
    todo.erase(todo.begin());
    if (!commits.insert(id).second) continue;
    out.commits++;
    auto snap = graph.AtReferencedCommit(id, "a ref entry or a commit's parents");
    if (!snap.ok()) {
      if (snap.status().code_string() == "history_reclaimed") {
        out.reclaimed_commits++;  // the commit object itself went with the history it belonged to
      } else {
        problems.Add(CommitKey(id), snap.status());
      }
      continue;
    }
    // Its parents, or, where a cleanup removed them, the kept ancestors it recorded.
    // (A commit outside the kept history that was young when a cleanup ran keeps its object, while
    // its parents went: counted like the rest of that history.)
    auto parents = graph.ParentIds(snap->commit());
    if (!parents.ok()) {
      if (parents.status().code_string() == "history_reclaimed") {
        out.reclaimed_commits++;
      } else {
        problems.Add(CommitKey(id), parents.status());
      }
    } else {
      for (const auto& p : *parents) {
        if (!commits.contains(p)) todo.insert(p);
      }
    }
    bool reclaimed = false;
    for (const auto& [name, ref] : snap->commit().tables) {
      const std::string prefix = TablePrefix(ref.table_id);
      if (manifests.contains({prefix, ref.version_id})) continue;
      const std::string key = table::AbsoluteKey(prefix, table::VersionKey(ref.version_id));
      auto head = store.Head(key);
      if (!head.ok() && head.status().category() == StatusCode::kNotFound) {
        if (ReclaimingRecord(cleanups, snap->commit()) != nullptr) {
          reclaimed = true;
          continue;
        }
        problems.Add(key, MissingTableVersionError(store, snap->commit(), name, key));
        continue;
      }
      if (!head.ok()) {
        problems.Add(key, head.status());
        continue;
      }
      manifests.insert({prefix, ref.version_id});
    }
    if (reclaimed) out.reclaimed_commits++;
  }

  // Manifests (decoded: checksum and structure) and the objects they name.
  std::vector<DataObject> objects;
  std::set<std::string> seen;
  for (const auto& [prefix, version] : manifests) {
    const std::string key = table::AbsoluteKey(prefix, table::VersionKey(version));
    out.manifests++;
    auto bytes = store.Get(key);
    if (!bytes.ok()) {
      problems.Add(key, bytes.status());
      continue;
    }
    auto m = table::DecodeManifest(*bytes, key);
    if (!m.ok()) {
      problems.Add(key, m.status());
      continue;
    }
    auto add = [&](DataObject o) {
      if (seen.insert(o.key).second) objects.push_back(std::move(o));
    };
    for (const auto& f : m->fragments) {
      add(DataObject{DataObject::kFragment, table::AbsoluteKey(prefix, f.file_key), f.file_size, f.tail_size,
                     f.physical_rows});
      if (!f.deletion_key.empty()) {
        add(DataObject{DataObject::kDeletion, table::AbsoluteKey(prefix, f.deletion_key), 0, 0, f.deleted_rows});
      }
      for (const auto& b : f.blob_keys) add(DataObject{DataObject::kBlob, table::AbsoluteKey(prefix, b), 0, 0, 0});
    }
    for (const auto& seg : m->indexes) {
      if (seg.kind == search::kTextIndexKind) {
        for (const auto& k : seg.keys) add(DataObject{DataObject::kTextIndex, table::AbsoluteKey(prefix, k), 0, 0, 0});
        continue;
      }
      if (seg.kind == search::kVectorIndexKind) {
        const table::Field* f = m->schema.FindById(seg.field_id);
        const uint64_t dim = f != nullptr ? f->type.dimension : 0;
        for (const auto& k : seg.keys)
          add(DataObject{DataObject::kVectorIndex, table::AbsoluteKey(prefix, k), 0, 0, dim});
        continue;
      }
      for (const auto& k : seg.keys) add(DataObject{DataObject::kIndex, table::AbsoluteKey(prefix, k), 0, 0, 0});
    }
  }
  for (const auto& o : objects) {
    switch (o.kind) {
      case DataObject::kFragment: out.fragments++; break;
      case DataObject::kDeletion: out.deletion_vectors++; break;
      case DataObject::kBlob: out.blob_files++; break;
      case DataObject::kIndex:
      case DataObject::kVectorIndex:
      case DataObject::kTextIndex: out.index_objects++; break;
    }
  }
  if (!options.verify_data) {
    // References only: every named object exists.
    ThreadPool pool(8);
    (void)pool.ParallelFor(objects.size(), [&](size_t i) {
      auto h = store.Head(objects[i].key);
      if (!h.ok()) problems.Add(objects[i].key, h.status());
      return Status::Ok();
    });
    return out;
  }
  ThreadPool pool(4);
  std::atomic<uint64_t> bytes{0};
  (void)pool.ParallelFor(objects.size(), [&](size_t i) {
    uint64_t n = 0;
    Status s = VerifyObject(store, objects[i], &n);
    if (!s.ok()) problems.Add(objects[i].key, s);
    bytes += n;
    return Status::Ok();
  });
  out.bytes_verified = bytes;
  return out;
}

}  // namespace omnigraph::engine
