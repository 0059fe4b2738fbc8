#include "cli/change_listing.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <map>
#include <utility>

#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/unique_fd.h"

namespace omnigraph::cli {

Result<ChangeFilter> ChangeFilterFlags::Build() const {
  ChangeFilter f;
  for (const auto& k : kinds) {
    OG_ASSIGN_OR_RETURN(EntityKind kind, ParseEntityKind(k));
    f.kinds.push_back(kind);
  }
  for (const auto& o : ops) {
    OG_ASSIGN_OR_RETURN(ChangeOp op, ParseChangeOp(o));
    f.ops.push_back(op);
  }
  f.types = types;
  return f;
}

void AddChangeFilterFlags(CLI::App* cmd, ChangeFilterFlags* f) {
  // One value per occurrence, as the Rust CLI's repeated flags: `--type T URI` must not take URI.
  cmd->add_option("--kind", f->kinds, "Only node or edge changes (repeatable)")->allow_extra_args(false);
  cmd->add_option("--type", f->types, "Only this type (repeatable)")->allow_extra_args(false);
  cmd->add_option("--op", f->ops, "Only insert, update or delete (repeatable)")->allow_extra_args(false);
}

namespace {

// ---- JSON, streamed --------------------------------------------------------------------------

void Out(std::string_view s) { std::fwrite(s.data(), 1, s.size(), stdout); }

// `j` as dump(2) prints it, placed `indent` spaces deep in an enclosing pretty document (every
// line after the first indented that much more): a document written one element at a time this
// way is byte-identical to dump(2) of the whole, without holding the whole (the Rust CLI streams
// its pages the same way).
void OutNested(const OrderedJson& j, size_t indent) {
  const std::string s = j.dump(2, ' ', false, OrderedJson::error_handler_t::replace);
  const std::string newline = "\n" + std::string(indent, ' ');
  size_t start = 0;
  for (size_t nl = s.find('\n'); nl != std::string::npos; nl = s.find('\n', start)) {
    Out(std::string_view(s).substr(start, nl - start));
    Out(newline);
    start = nl + 1;
  }
  Out(std::string_view(s).substr(start));
}

// ---- Text, read off the output JSON (missing or mistyped members read as empty) ---------------

const OrderedJson* Member(const OrderedJson& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

std::optional<std::string> StringMember(const OrderedJson& j, const char* key) {
  const OrderedJson* v = Member(j, key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

std::string StringOr(const OrderedJson& j, const char* key) { return StringMember(j, key).value_or(""); }

// An entity image ({properties, endpoints?}) of a change, or null when the change has none.
const OrderedJson* Image(const OrderedJson& change, const char* which) {
  const OrderedJson* v = Member(change, which);
  return v != nullptr && v->is_object() ? v : nullptr;
}

const OrderedJson& Properties(const OrderedJson& image) {
  static const OrderedJson kEmpty = OrderedJson::object();
  const OrderedJson* p = Member(image, "properties");
  return p != nullptr && p->is_object() ? *p : kEmpty;
}

std::string Endpoint(const OrderedJson& image, const char* which) {
  const OrderedJson* e = Member(image, "endpoints");
  return e == nullptr ? "" : StringOr(*e, which);
}

// A property value in text: a string verbatim (so the string "null" reads null), null as <null>
// (an absent key is <absent>), anything else as compact JSON. --json stays the exact form.
std::string ValueText(const OrderedJson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "<null>";
  return v.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace

void OutBlockJson(const OrderedJson& cause, size_t count, const ChangeAt& change_at, size_t indent,
                  const std::optional<std::string>& next_page_token) {
  const std::string pad(indent, ' ');
  Out("{\n" + pad + "  \"cause\": ");
  OutNested(cause, indent + 2);
  Out(",\n" + pad + "  \"changes\": [");
  for (size_t i = 0; i < count; ++i) {
    Out((i == 0 ? "\n" : ",\n") + pad + "    ");
    OutNested(change_at(i), indent + 4);
  }
  Out(count == 0 ? "]" : "\n" + pad + "  ]");
  if (next_page_token) Out(",\n" + pad + "  \"next_page_token\": " + OrderedJson(*next_page_token).dump());
  Out("\n" + pad + "}");
}

void PrintCauseText(const OrderedJson& c) {
  std::printf("commit: %s\nbranch: %s\n", StringOr(c, "graph_commit_id").c_str(),
              StringOr(c, "authored_branch").c_str());
  if (auto p = StringMember(c, "parent_commit_id")) std::printf("parent: %s\n", p->c_str());
  if (auto p = StringMember(c, "merged_parent_commit_id")) std::printf("merged_parent: %s\n", p->c_str());
  if (auto a = StringMember(c, "actor_id")) std::printf("actor: %s\n", a->c_str());
  const OrderedJson* at = Member(c, "authored_at");
  const int64_t authored_at = at != nullptr && at->is_number_integer() ? at->get<int64_t>() : 0;
  std::printf("authored_at: %lld\n", static_cast<long long>(authored_at));
}

// `{op} {kind} {Type} {id}`; for an edge its endpoints (`  from -> to`, or both pairs when an
// update moved it); then `  + key: value` per property of an insert, `  - key: value` of a delete,
// or `  key: before -> after` per changed key of an update, keys sorted.
void PrintChangeRowText(const OrderedJson& c) {
  const OrderedJson* type = Member(c, "type");
  const std::string kind = StringOr(c, "kind");
  std::printf("%s %s %s %s\n", StringOr(c, "op").c_str(), kind.c_str(),
              type == nullptr ? "" : StringOr(*type, "name").c_str(), StringOr(c, "id").c_str());
  const OrderedJson* before = Image(c, "before");
  const OrderedJson* after = Image(c, "after");
  if (kind == "edge" && (before || after)) {
    if (before && after &&
        (Endpoint(*before, "from") != Endpoint(*after, "from") || Endpoint(*before, "to") != Endpoint(*after, "to"))) {
      std::printf("  %s -> %s => %s -> %s\n", Endpoint(*before, "from").c_str(), Endpoint(*before, "to").c_str(),
                  Endpoint(*after, "from").c_str(), Endpoint(*after, "to").c_str());
    } else {
      const OrderedJson* e = before ? before : after;
      std::printf("  %s -> %s\n", Endpoint(*e, "from").c_str(), Endpoint(*e, "to").c_str());
    }
  }
  if (after && !before) {
    for (const auto& [name, value] : Properties(*after).items()) {
      std::printf("  + %s: %s\n", name.c_str(), ValueText(value).c_str());
    }
  } else if (before && !after) {
    for (const auto& [name, value] : Properties(*before).items()) {
      std::printf("  - %s: %s\n", name.c_str(), ValueText(value).c_str());
    }
  } else if (before && after) {
    std::map<std::string, std::pair<const OrderedJson*, const OrderedJson*>> keys;  // sorted, as the Rust CLI
    const OrderedJson& old_values = Properties(*before);
    const OrderedJson& new_values = Properties(*after);
    for (auto it = old_values.begin(); it != old_values.end(); ++it) keys[it.key()].first = &*it;
    for (auto it = new_values.begin(); it != new_values.end(); ++it) keys[it.key()].second = &*it;
    for (const auto& [k, vs] : keys) {
      if (vs.first && vs.second && *vs.first == *vs.second) continue;
      std::printf("  %s: %s -> %s\n", k.c_str(), vs.first ? ValueText(*vs.first).c_str() : "<absent>",
                  vs.second ? ValueText(*vs.second).c_str() : "<absent>");
    }
  }
}

void PrintCommitChanges(bool json, const OrderedJson& cause, size_t count, const ChangeAt& change_at,
                        const std::optional<std::string>& next_page_token) {
  if (json) {
    OutBlockJson(cause, count, change_at, 0, next_page_token);
    Out("\n");
    return;
  }
  PrintCauseText(cause);
  for (size_t i = 0; i < count; ++i) PrintChangeRowText(change_at(i));
  if (next_page_token) std::printf("next_page_token: %s\n", next_page_token->c_str());
}

void FeedPrinter::Block(const OrderedJson& cause, size_t count, const ChangeAt& change_at) {
  if (json_) {
    Out(blocks_ == 0 ? "{\n  \"blocks\": [\n    " : ",\n    ");
    OutBlockJson(cause, count, change_at, 4);
  } else {
    if (blocks_ > 0) std::printf("\n");
    PrintCauseText(cause);
    for (size_t i = 0; i < count; ++i) PrintChangeRowText(change_at(i));
  }
  ++blocks_;
  std::fflush(stdout);
}

void FeedPrinter::Finish(const std::string& cursor, bool caught_up) {
  const char* caught = caught_up ? "true" : "false";
  if (json_) {
    Out(blocks_ == 0 ? "{\n  \"blocks\": []" : "\n  ]");
    Out(",\n  \"cursor\": " + OrderedJson(cursor).dump() + ",\n  \"caught_up\": " + caught + "\n}\n");
  } else {
    if (blocks_ == 0) std::printf("(no new commits)\n");
    std::printf("\ncursor: %s\ncaught_up: %s\n", cursor.c_str(), caught);
  }
}

// ---- changes baseline -------------------------------------------------------------------------

namespace {

Status SyncDir(const std::string& dir) {
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot open directory '" + dir + "' to sync it", errno);
  if (::fsync(fd.get()) != 0) return ErrnoError("fsync directory '" + dir + "'", errno);
  return Status::Ok();
}

}  // namespace

Result<ChangeBaseline> InstallBaseline(const std::string& path,
                                       const std::function<Result<ChangeBaseline>(const BaselineLineSink&)>& capture) {
  // Cooperating captures of one PATH wait for each other: two at once could each install and
  // print, and the one replaced last would pair its cursor with the other's snapshot, skipping the
  // changes between the two heads. The lock file stays (as the Rust CLI's): deleting it would race
  // with the next locker.
  const std::string lock_path = path + ".lock";
  UniqueFd lock(::open(lock_path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (lock.get() < 0) return ErrnoError("cannot open the lock file '" + lock_path + "'", errno);
  while (::flock(lock.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return ErrnoError("cannot lock '" + lock_path + "'", errno);
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string tmp = dir + "/." + base + ".tmpXXXXXX";
  UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (fd.get() < 0) return ErrnoError("cannot create a temporary file in '" + dir + "' for the baseline", errno);
  FILE* f = ::fdopen(fd.get(), "wb");
  if (f == nullptr) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoError("cannot write '" + tmp + "'", err);
  }
  fd.release();  // f owns it now
  auto baseline = capture([&](std::string_view line) -> Status {
    errno = 0;
    if (std::fwrite(line.data(), 1, line.size(), f) != line.size() || std::fputc('\n', f) == EOF) {
      return ErrnoError("writing '" + tmp + "'", errno != 0 ? errno : EIO);
    }
    return Status::Ok();
  });
  Status s = baseline.status();
  struct stat installed {};
  if (s.ok() && std::fflush(f) != 0) s = ErrnoError("writing '" + tmp + "'", errno);
  if (s.ok() && ::fsync(::fileno(f)) != 0) s = ErrnoError("fsync '" + tmp + "'", errno);
  if (s.ok() && ::fstat(::fileno(f), &installed) != 0) s = ErrnoError("stat '" + tmp + "'", errno);
  if (std::fclose(f) != 0 && s.ok()) s = ErrnoError("writing '" + tmp + "'", errno);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    s = ErrnoError("cannot install the baseline at '" + path + "'", errno);
  }
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  OG_RETURN_IF_ERROR(SyncDir(dir));  // the rename is durable only now
  // A writer that does not take the lock may have replaced PATH since the rename; our cursor
  // would then be paired with its file.
  struct stat now {};
  if (::stat(path.c_str(), &now) != 0 || now.st_dev != installed.st_dev || now.st_ino != installed.st_ino) {
    return Status(ErrorCode::kConflict, "the baseline at " + path +
                                            " was replaced by another writer after this capture installed its "
                                            "snapshot; no resume cursor printed — re-run the capture");
  }
  return baseline;
}

void PrintBaseline(bool json, const std::string& path, const ChangeBaseline& baseline) {
  if (json) {
    OrderedJson j = OrderedJson::object();
    j["snapshot_commit_id"] = baseline.snapshot_commit_id;
    j["resume_cursor"] = baseline.resume_cursor;
    PrintJson(j);
  } else {
    std::printf("snapshot: %s\nsnapshot_commit_id: %s\nresume_cursor: %s\n", path.c_str(),
                baseline.snapshot_commit_id.c_str(), baseline.resume_cursor.c_str());
  }
}

}  // namespace omnigraph::cli
