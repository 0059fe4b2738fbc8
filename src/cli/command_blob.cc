// `omnigraph blob get ENTITY TYPE ID PROPERTY [--branch B | --snapshot S] [--offset N] [--length M]
// [--out PATH]` and `omnigraph blob stat ENTITY TYPE ID PROPERTY [--branch B | --snapshot S]
// [--json]`: one Blob cell through the public API (Database::ReadBlob / StatBlob). The graph is
// addressed by scope only (--store, --profile, the operator defaults), as in the Rust CLI: a
// positional URI is an unexpected argument. Errors always go to stderr, so stdout holds only Blob
// bytes or Blob metadata.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::cli {
namespace {

struct BlobFlags {
  GraphFlags graph;  // scope only: no positional URI
  std::string entity, type, id, property, branch, snapshot;
  std::string offset, length;  // get: as given (parsed as decimal u64)
  bool has_offset = false, has_length = false;
  std::string out;
};

// The Rust CLI's addressing guard (planes.rs) for the blob verbs, data commands that take no
// actor: --cluster and --as do not apply (checked in its order: server, cluster, graph, store, as).
Status GuardBlobScope(std::string_view label) {
  auto reject = [&](std::string_view clause) {
    return InvalidArgumentError("`" + std::string(label) + "` is a data command; " + std::string(clause) +
                                " and does not apply.");
  };
  if (!Globals().cluster.empty()) return reject("--cluster addresses a cluster-scoped command");
  if (!Globals().actor.empty()) {
    return reject("--as sets the actor for a direct-engine or actor-bound cluster operation");
  }
  return Status::Ok();
}

// A decimal u64 flag value; a malformed one is a usage error (exit 2), as clap's.
Result<uint64_t> ParseU64Flag(std::string_view flag, const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) {
    return UsageError("invalid value '" + text + "' for '" + std::string(flag) +
                      "': a whole number of bytes from 0 to 18446744073709551615");
  }
  return v;
}

// The range of --offset/--length, checked before the graph is opened (the Rust CLI's order and
// messages): none = the whole Blob.
Result<std::optional<BlobRange>> RangeOf(const BlobFlags& f) {
  if (!f.has_offset && !f.has_length) return std::optional<BlobRange>();
  BlobRange r;
  if (f.has_offset) {
    OG_ASSIGN_OR_RETURN(r.offset, ParseU64Flag("--offset <OFFSET>", f.offset));
  }
  if (f.has_length) {
    OG_ASSIGN_OR_RETURN(uint64_t length, ParseU64Flag("--length <LENGTH>", f.length));
    if (length == 0) return InvalidArgumentError("Blob range --length must be greater than zero");
    if (length > UINT64_MAX - r.offset) {
      return InvalidArgumentError("Blob range overflows u64: offset " + std::to_string(r.offset) + ", length " +
                                  std::to_string(length));
    }
    r.length = length;
  }
  return std::optional<BlobRange>(r);
}

ReadTarget TargetOf(const BlobFlags& f) {
  if (!f.snapshot.empty()) return ReadTarget::SnapshotId(f.snapshot);
  return ReadTarget::Head(f.branch.empty() ? "main" : f.branch);
}

Status CheckSelectorFlags(const BlobFlags& f, std::string_view label) {
  if (!f.branch.empty() && !f.snapshot.empty()) return UsageError("--branch and --snapshot exclude each other");
  return GuardBlobScope(label);
}

Status WriteAll(FILE* out, const std::string& bytes, const std::string& what) {
  errno = 0;
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size()) {
    return ErrnoError("writing " + what, errno != 0 ? errno : EIO);
  }
  return Status::Ok();
}

// `--out PATH` is opened (created or truncated) only once the bytes are read and verified, so a
// failure before that leaves it untouched; an empty Blob still creates or truncates it.
Status WriteOut(const std::string& path, const std::string& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return ErrnoError("cannot write '" + path + "'", errno);
  Status s = WriteAll(f, bytes, "'" + path + "'");
  errno = 0;
  if (std::fclose(f) != 0 && s.ok()) s = ErrnoError("writing '" + path + "'", errno != 0 ? errno : EIO);
  return s;
}

int RunBlobGet(const BlobFlags& f) {
  if (Status s = CheckSelectorFlags(f, "blob get"); !s.ok()) return ReportError(s, false);
  auto range = RangeOf(f);
  if (!range.ok()) return ReportError(range.status(), false);
  auto kind = ParseEntityKind(f.entity);
  if (!kind.ok()) return ReportError(AsUsageError(kind.status()), false);
  auto g = OpenGraph(f.graph, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), false);
  auto bytes = (*g)->ReadBlob(TargetOf(f), *kind, f.type, f.id, f.property, *range);
  if (!bytes.ok()) return ReportError(bytes.status(), false);
  Status s = f.out.empty() ? WriteAll(stdout, *bytes, "standard output") : WriteOut(f.out, *bytes);
  return ReportError(s, false);
}

int RunBlobStat(const BlobFlags& f) {
  if (Status s = CheckSelectorFlags(f, "blob stat"); !s.ok()) return ReportError(s, false);
  auto kind = ParseEntityKind(f.entity);
  if (!kind.ok()) return ReportError(AsUsageError(kind.status()), false);
  auto g = OpenGraph(f.graph, /*writable=*/false);
  if (!g.ok()) return ReportError(g.status(), false);
  auto info = (*g)->StatBlob(TargetOf(f), *kind, f.type, f.id, f.property);
  if (!info.ok()) return ReportError(info.status(), false);
  if (f.graph.json) {
    // The Rust CLI's BlobStatOutput (managed: size and etag, no uri).
    OrderedJson selector = OrderedJson::object();
    selector["entity"] = f.entity;
    selector["type"] = f.type;
    selector["id"] = f.id;
    selector["property"] = f.property;
    OrderedJson target = OrderedJson::object();
    if (!f.branch.empty()) target["branch"] = f.branch;
    if (!f.snapshot.empty()) target["snapshot"] = f.snapshot;
    target["resolved_snapshot"] = info->snapshot_id;
    OrderedJson j = OrderedJson::object();
    j["selector"] = std::move(selector);
    j["kind"] = "managed";
    j["size"] = info->size;
    j["etag"] = info->etag;
    j["target"] = std::move(target);
    std::printf("%s\n", j.dump(2, ' ', false, OrderedJson::error_handler_t::replace).c_str());
  } else {
    std::string out = "entity: " + f.entity + "\ntype: " + f.type + "\nid: " + f.id + "\nproperty: " + f.property +
                      "\nkind: managed\nsize: " + std::to_string(info->size) + "\netag: " + info->etag + "\n";
    if (!f.branch.empty()) out += "branch: " + f.branch + "\n";
    if (!f.snapshot.empty()) out += "snapshot: " + f.snapshot + "\n";
    out += "resolved_snapshot: " + info->snapshot_id + "\n";
    std::fputs(out.c_str(), stdout);
  }
  return kExitOk;
}

// The selector positionals and target flags both verbs take.
void AddSelector(CLI::App* cmd, BlobFlags* f) {
  cmd->add_option("entity", f->entity, "node or edge")->required()->check(CLI::IsMember({"node", "edge"}));
  cmd->add_option("type", f->type, "Node or edge type")->required();
  cmd->add_option("id", f->id, "Node or edge id")->required();
  cmd->add_option("property", f->property, "Blob property")->required();
  cmd->add_option("--branch", f->branch, "Branch head to read (default main)");
  cmd->add_option("--snapshot", f->snapshot, "Snapshot id (BRANCH@VERSION@INCARNATION) or commit id to read at");
}

}  // namespace

void AddBlobCommands(CLI::App& app, CommandAction* run) {
  auto* blob = app.add_subcommand("blob", "Read Blob cells: bytes (get) or metadata (stat)");
  blob->require_subcommand(1);
  {
    auto* get = blob->add_subcommand("get", "Write a Blob's bytes (or a byte range) to stdout or --out");
    auto f = std::make_shared<BlobFlags>();
    AddSelector(get, f.get());
    auto* offset = get->add_option("--offset", f->offset, "First byte of the range (default 0)");
    auto* length = get->add_option("--length", f->length, "Bytes of the range (default: to the end)");
    get->add_option("--out", f->out, "Write the bytes to this file (only once they are read)");
    get->callback([=] {
      f->has_offset = offset->count() > 0;
      f->has_length = length->count() > 0;
      *run = [=] { return RunBlobGet(*f); };
    });
  }
  {
    auto* stat = blob->add_subcommand("stat", "Describe a Blob cell: kind, size, etag, resolved snapshot");
    auto f = std::make_shared<BlobFlags>();
    AddSelector(stat, f.get());
    AddGraphFlags(stat, &f->graph, /*positional=*/false);
    stat->callback([=] { *run = [=] { return RunBlobStat(*f); }; });
  }
}

}  // namespace omnigraph::cli
