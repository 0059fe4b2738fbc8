// `omnigraph embed`: an offline JSONL -> JSONL tool that adds, refreshes or strips the embedding
// vectors of seed records before they are loaded (docs/cli.md, "embed"). No graph is opened.
//
//   omnigraph embed (--seed MANIFEST | --input IN --output OUT --spec SPEC)
//                   [--reembed-all | --clean] [--type T]... [--select [Type:]field=value]... [--json]
//
// The spec (JSON file, or the `embeddings` key of the seed manifest) is
// {"dimension": N, "types": {"<Type>": {"target": "<field>", "fields": ["<field>", ...]}}}.
// Records `{"type": T, "data": {...}}` of a type the spec names get data[target] set to the vector
// of "type: T\n<field>: <value>..." (EmbedDocumentText); every other line (edges) is copied as is.
// The output is written to a temp file beside it and renamed over it only once every line is done.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cli/cli_graph.h"
#include "cli/cli_util.h"
#include "common/error_codes.h"
#include "common/file_util.h"
#include "common/json.h"
#include "common/output_json.h"
#include "common/unique_fd.h"
#include "common/utf8.h"
#include "common/yaml_text.h"
#include "omnigraph/omnigraph.h"

namespace omnigraph::cli {
namespace {

constexpr uint64_t kMaxDimension = 65536;  // as a schema's Vector(n)

struct EmbedFlags {
  std::string seed, input, output, spec;
  bool has_seed = false, has_input = false, has_output = false, has_spec = false;
  bool clean = false, reembed_all = false, json = false;
  std::vector<std::string> types, selectors;
};

struct TypeSpec {
  std::string target;
  std::vector<std::string> fields;
};

struct EmbedSpec {
  uint32_t dimension = 0;
  std::map<std::string, TypeSpec> types;
};

enum class Mode { kFillMissing, kReembedAll, kClean };

// `[Type:]field=value`: a record matches when its type is Type (when given) and the rendered value
// of data[field] equals value.
struct Selector {
  std::string type_name;  // empty: any type
  std::string field, expected;
};

struct Job {
  std::string input, output;
  EmbedSpec spec;
  Mode mode = Mode::kFillMissing;
  std::set<std::string> type_filter;
  std::vector<Selector> selectors;
};

struct Counts {
  uint64_t records = 0, selected = 0, embedded = 0, cleaned = 0;
};

Status Invalid(std::string message) { return Status(ErrorCode::kInvalidArgument, std::move(message)); }

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r\n\f\v");
  return std::string(s.substr(b, e - b + 1));
}

// ---- flags, selectors, environment ------------------------------------------------------------

Result<Selector> ParseSelector(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) {
    return UsageError("--select '" + text + "': a selector is field=value or Type:field=value");
  }
  Selector s;
  const std::string lhs = text.substr(0, eq);
  s.expected = Trim(std::string_view(text).substr(eq + 1));
  const size_t colon = lhs.find(':');
  if (colon == std::string::npos) {
    s.field = Trim(lhs);
  } else {
    s.type_name = Trim(std::string_view(lhs).substr(0, colon));
    s.field = Trim(std::string_view(lhs).substr(colon + 1));
  }
  if (s.field.empty()) return UsageError("--select '" + text + "': the selector's field is empty");
  return s;
}

std::string EnvText(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : Trim(v);
}

// The model the embeddings come from, resolved from the environment as the provider client does
// (docs/search.md): the mock reports OMNIGRAPH_EMBED_MODEL or nothing, a real provider that model
// or its default.
std::string ResolvedModel() {
  std::string mock = EnvText("OMNIGRAPH_EMBEDDINGS_MOCK");
  for (char& c : mock) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::string provider = EnvText("OMNIGRAPH_EMBED_PROVIDER");
  const std::string model = EnvText("OMNIGRAPH_EMBED_MODEL");
  if (mock == "1" || mock == "true" || mock == "yes" || mock == "on" || provider == "mock") return model;
  if (!model.empty()) return model;
  if (provider == "openai") return "text-embedding-3-large";
  if (provider == "gemini") return "gemini-embedding-2";
  return "openai/text-embedding-3-large";
}

// ---- the spec and the seed manifest -----------------------------------------------------------

Status CheckDimension(uint64_t dim, const std::string& what) {
  if (dim < 1 || dim > kMaxDimension) {
    return Invalid(what + ": dimension must be between 1 and " + std::to_string(kMaxDimension) + ", got " +
                   std::to_string(dim));
  }
  return Status::Ok();
}

Result<EmbedSpec> ParseSpecJson(const std::string& path) {
  OG_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "embedding spec"));
  const std::string what = "embedding spec '" + path + "'";
  OG_ASSIGN_OR_RETURN(Json doc, ParseJsonUnique(text, what));
  if (!doc.is_object()) return Invalid(what + ": must be a JSON object {dimension, types}");
  EmbedSpec spec;
  OG_ASSIGN_OR_RETURN(uint64_t dim, GetUint(doc, "dimension", what));
  OG_RETURN_IF_ERROR(CheckDimension(dim, what));
  spec.dimension = static_cast<uint32_t>(dim);
  OG_ASSIGN_OR_RETURN(const Json* types, GetObject(doc, "types", what));
  for (auto it = types->begin(); it != types->end(); ++it) {
    const std::string type_what = what + ", types." + it.key();
    if (!it.value().is_object()) return Invalid(type_what + ": must be an object {target, fields}");
    TypeSpec t;
    OG_ASSIGN_OR_RETURN(t.target, GetString(it.value(), "target", type_what));
    if (t.target.empty()) return Invalid(type_what + ": target must not be empty");
    OG_ASSIGN_OR_RETURN(const Json* fields, GetArray(it.value(), "fields", type_what));
    for (const Json& f : *fields) {
      if (!f.is_string()) return Invalid(type_what + ": fields must be an array of strings");
      t.fields.push_back(f.get<std::string>());
    }
    spec.types.emplace(it.key(), std::move(t));
  }
  return spec;
}

// A scalar of the manifest as text; `key` names it in errors.
Result<std::string> YamlScalar(const YAML::Node& node, const std::string& key, const std::string& what) {
  if (!node.IsScalar()) return Invalid(what + ": " + key + " must be a string");
  return node.Scalar();
}

Result<EmbedSpec> ParseSpecYaml(const YAML::Node& node, const std::string& what) {
  if (!node.IsMap()) return Invalid(what + ": embeddings must be a mapping {dimension, types}");
  EmbedSpec spec;
  const YAML::Node dim_node = node["dimension"];
  if (!dim_node) return Invalid(what + ": embeddings.dimension is missing");
  OG_ASSIGN_OR_RETURN(std::string dim_text, YamlScalar(dim_node, "embeddings.dimension", what));
  uint64_t dim = 0;
  auto [end, ec] = std::from_chars(dim_text.data(), dim_text.data() + dim_text.size(), dim);
  if (ec != std::errc() || end != dim_text.data() + dim_text.size()) {
    return Invalid(what + ": embeddings.dimension must be a positive integer, got '" + dim_text + "'");
  }
  OG_RETURN_IF_ERROR(CheckDimension(dim, what));
  spec.dimension = static_cast<uint32_t>(dim);
  const YAML::Node types = node["types"];
  if (!types || !types.IsMap()) return Invalid(what + ": embeddings.types must be a mapping of type names");
  for (auto it = types.begin(); it != types.end(); ++it) {
    OG_ASSIGN_OR_RETURN(std::string name, YamlScalar(it->first, "a type name under embeddings.types", what));
    const std::string key = "embeddings.types." + name;
    const YAML::Node body = it->second;
    if (!body.IsMap()) return Invalid(what + ": " + key + " must be a mapping {target, fields}");
    TypeSpec t;
    const YAML::Node target = body["target"];
    if (!target) return Invalid(what + ": " + key + ".target is missing");
    OG_ASSIGN_OR_RETURN(t.target, YamlScalar(target, key + ".target", what));
    if (t.target.empty()) return Invalid(what + ": " + key + ".target must not be empty");
    const YAML::Node fields = body["fields"];
    if (!fields || !fields.IsSequence()) return Invalid(what + ": " + key + ".fields must be a list of field names");
    for (const auto& f : fields) {
      OG_ASSIGN_OR_RETURN(std::string field, YamlScalar(f, key + ".fields[]", what));
      t.fields.push_back(std::move(field));
    }
    if (!spec.types.emplace(name, std::move(t)).second) return Invalid(what + ": " + key + " is given twice");
  }
  return spec;
}

// `rel` relative to the folder of the manifest (absolute paths as they are).
std::string JoinManifestPath(const std::string& base, const std::string& rel) {
  if (rel.empty() || rel.front() == '/' || base.empty()) return rel;
  return base.back() == '/' ? base + rel : base + "/" + rel;
}

// The manifest: sources.raw_seed (or the older seed.data), artifacts.embedded_seed (default
// ./build/seed.embedded.jsonl) and embeddings (the spec); paths are relative to its folder.
Status LoadSeedManifest(const std::string& path, Job* job, bool output_given) {
  OG_ASSIGN_OR_RETURN(std::string text, ReadFile(path, "seed manifest"));
  const std::string what = "seed manifest '" + path + "'";
  if (size_t bad = FirstInvalidUtf8(text); bad != std::string_view::npos) {
    return Invalid(what + ": is not UTF-8 text (invalid byte at offset " + std::to_string(bad) + ")");
  }
  if (size_t line = SecondYamlDocumentLine(text); line != 0) {
    return Invalid(what + ": holds more than one YAML document (line " + std::to_string(line) + ")");
  }
  const size_t slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? "" : slash == 0 ? "/" : path.substr(0, slash);
  try {
    if (ContentAfterFirstYamlDocument(text)) return Invalid(what + ": has content after its first YAML node");
    const YAML::Node doc = YAML::Load(text);
    if (!doc.IsMap()) return Invalid(what + ": must be a YAML mapping");
    std::string raw_seed;
    const YAML::Node sources = doc["sources"];
    const YAML::Node legacy = doc["seed"];
    if (sources && sources.IsMap() && sources["raw_seed"]) {
      OG_ASSIGN_OR_RETURN(raw_seed, YamlScalar(sources["raw_seed"], "sources.raw_seed", what));
    } else if (legacy && legacy.IsMap() && legacy["data"]) {
      OG_ASSIGN_OR_RETURN(raw_seed, YamlScalar(legacy["data"], "seed.data", what));
    }
    if (raw_seed.empty()) return Invalid(what + ": sources.raw_seed is missing");
    std::string embedded_seed = "./build/seed.embedded.jsonl";
    const YAML::Node artifacts = doc["artifacts"];
    if (artifacts && artifacts.IsMap() && artifacts["embedded_seed"]) {
      OG_ASSIGN_OR_RETURN(embedded_seed, YamlScalar(artifacts["embedded_seed"], "artifacts.embedded_seed", what));
    }
    const YAML::Node embeddings = doc["embeddings"];
    if (!embeddings) return Invalid(what + ": embeddings is missing");
    OG_ASSIGN_OR_RETURN(job->spec, ParseSpecYaml(embeddings, what));
    job->input = JoinManifestPath(base, raw_seed);
    if (!output_given) job->output = JoinManifestPath(base, embedded_seed);
  } catch (const YAML::Exception& e) {
    return Invalid(what + ": could not parse (line " + std::to_string(e.mark.line + 1) + "): " + e.msg);
  }
  return Status::Ok();
}

Result<Job> ResolveJob(const EmbedFlags& f) {
  if (f.clean && f.reembed_all) return UsageError("--clean and --reembed-all exclude each other");
  if (f.has_seed && (f.has_input || f.has_spec)) {
    return UsageError("--seed excludes --input and --spec (the manifest names the input and the spec)");
  }
  Job job;
  job.mode = f.clean ? Mode::kClean : f.reembed_all ? Mode::kReembedAll : Mode::kFillMissing;
  for (const auto& text : f.selectors) {
    OG_ASSIGN_OR_RETURN(Selector s, ParseSelector(text));
    job.selectors.push_back(std::move(s));
  }
  job.type_filter.insert(f.types.begin(), f.types.end());
  if (f.has_seed) {
    if (f.seed.empty()) return UsageError("--seed needs a manifest path");
    if (f.has_output) job.output = f.output;
    OG_RETURN_IF_ERROR(LoadSeedManifest(f.seed, &job, f.has_output));
  } else {
    if (!f.has_input) return UsageError("--input is required when --seed is not given");
    if (!f.has_output) return UsageError("--output is required when --seed is not given");
    if (!f.has_spec) return UsageError("--spec is required when --seed is not given");
    job.input = f.input;
    job.output = f.output;
    OG_ASSIGN_OR_RETURN(job.spec, ParseSpecJson(f.spec));
  }
  if (job.input.empty()) return UsageError("the input path is empty");
  if (job.output.empty()) return UsageError("the output path is empty");
  return job;
}

// ---- the output file --------------------------------------------------------------------------

// A file written whole or not at all: lines go to a temp file beside `path`; Commit flushes and
// fsyncs it, renames it over `path` and fsyncs the folder. Without Commit the temp file is removed.
class AtomicOutput {
 public:
  AtomicOutput() = default;
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput() {
    if (file_ != nullptr) std::fclose(file_);
    if (!tmp_.empty() && !committed_) ::unlink(tmp_.c_str());
  }

  Status Open(const std::string& path) {
    path_ = path;
    const size_t slash = path.rfind('/');
    dir_ = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::error_code ec;
    if (!std::filesystem::is_directory(dir_, ec)) {
      if (!std::filesystem::create_directories(dir_, ec) && ec) {
        return ErrnoError("cannot create the output folder '" + dir_ + "'", ec.value());
      }
    }
    std::string tmp = dir_ + "/." + base + ".tmpXXXXXX";
    UniqueFd fd(::mkostemp(tmp.data(), O_CLOEXEC));
    if (fd.get() < 0) return ErrnoError("cannot create a temporary file in '" + dir_ + "'", errno);
    tmp_ = tmp;
    file_ = ::fdopen(fd.get(), "wb");
    if (file_ == nullptr) return ErrnoError("cannot write '" + tmp_ + "'", errno);
    fd.release();  // file_ owns it now
    // mkostemp creates 0600; the output is an ordinary file (as the umask allows).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(::fileno(file_), 0666 & ~mask) != 0) return ErrnoError("cannot chmod '" + tmp_ + "'", errno);
    return Status::Ok();
  }

  Status WriteLine(std::string_view line) {
    errno = 0;
    if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fputc('\n', file_) == EOF) {
      return ErrnoError("writing '" + tmp_ + "'", errno != 0 ? errno : EIO);
    }
    return Status::Ok();
  }

  Status Commit() {
    Status s;
    if (std::fflush(file_) != 0) s = ErrnoError("writing '" + tmp_ + "'", errno);
    if (s.ok() && ::fsync(::fileno(file_)) != 0) s = ErrnoError("fsync '" + tmp_ + "'", errno);
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0 && s.ok()) s = ErrnoError("writing '" + tmp_ + "'", errno);
    if (s.ok() && std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      s = ErrnoError("cannot install the output at '" + path_ + "'", errno);
    }
    OG_RETURN_IF_ERROR(s);
    committed_ = true;
    UniqueFd dir(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) return ErrnoError("cannot open directory '" + dir_ + "' to sync it", errno);
    if (::fsync(dir.get()) != 0) return ErrnoError("fsync directory '" + dir_ + "'", errno);
    return Status::Ok();
  }

 private:
  std::string path_, dir_, tmp_;
  FILE* file_ = nullptr;
  bool committed_ = false;
};

// ---- records ----------------------------------------------------------------------------------

// A value as the text embedded and matched by selectors: strings trimmed, null empty, lists as
// their non-empty items joined by ", ", other values as compact JSON.
std::string Render(const OrderedJson& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return Trim(v.get_ref<const std::string&>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) {
    std::string out;
    for (const auto& item : v) {
      std::string r = Render(item);
      if (r.empty()) continue;
      if (!out.empty()) out += ", ";
      out += r;
    }
    return out;
  }
  return v.dump(-1, ' ', false, OrderedJson::error_handler_t::replace);
}

bool SelectorMatches(const Selector& s, const std::string& type_name, const OrderedJson& data) {
  if (!s.type_name.empty() && s.type_name != type_name) return false;
  auto it = data.find(s.field);
  return it != data.end() && Render(*it) == s.expected;
}

bool IsSelected(const Job& job, const std::string& type_name, const OrderedJson& data) {
  if (!job.type_filter.empty() && job.type_filter.count(type_name) == 0) return false;
  if (job.selectors.empty()) return true;
  for (const auto& s : job.selectors) {
    if (SelectorMatches(s, type_name, data)) return true;
  }
  return false;
}

// Absent, null or an empty list: the record has no vector yet.
bool EmbeddingMissing(const OrderedJson& data, const std::string& target) {
  auto it = data.find(target);
  return it == data.end() || it->is_null() || (it->is_array() && it->empty());
}

std::string EmbeddingText(const std::string& type_name, const OrderedJson& data, const TypeSpec& spec) {
  std::string text = "type: " + type_name;
  for (const auto& field : spec.fields) {
    auto it = data.find(field);
    if (it == data.end()) continue;
    std::string r = Render(*it);
    if (!r.empty()) text += "\n" + field + ": " + r;
  }
  return text;
}

Status EmbedRecord(const std::string& type_name, const TypeSpec& spec, uint32_t dim, OrderedJson* data) {
  const std::string text = EmbeddingText(type_name, *data, spec);
  if (Trim(text).empty()) return Status::Ok();
  OG_ASSIGN_OR_RETURN(std::vector<float> vec, EmbedDocumentText(text, dim));
  OrderedJson arr = OrderedJson::array();
  for (float x : vec) {
    if (!std::isfinite(x)) return Status(ErrorCode::kEmbeddingFailed, "the embedding holds a non-finite number");
    arr.push_back(F32Json(x).get<double>());
  }
  (*data)[spec.target] = std::move(arr);
  return Status::Ok();
}

// One non-blank input line: parsed, selected, embedded or cleaned, and written out.
Status ProcessLine(const Job& job, std::string_view raw, const std::string& where, Counts* counts, AtomicOutput* out) {
  OG_RETURN_IF_ERROR(ParseJsonUnique(raw, where).status());  // typed error: position, duplicates, depth
  OrderedJson root = OrderedJson::parse(raw.begin(), raw.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return Invalid(where + ": must be a JSON object");
  auto type_it = root.find("type");
  if (type_it != root.end() && type_it->is_string()) {
    const std::string type_name = type_it->get<std::string>();
    auto data_it = root.find("data");
    if (data_it == root.end() || !data_it->is_object()) return Invalid(where + ": is missing object field 'data'");
    OrderedJson& data = *data_it;
    const bool selected = IsSelected(job, type_name, data);
    if (selected) ++counts->selected;
    auto spec_it = job.spec.types.find(type_name);
    if (spec_it != job.spec.types.end()) {
      const TypeSpec& spec = spec_it->second;
      bool embed = false;
      switch (job.mode) {
        case Mode::kClean:
          if (selected && data.erase(spec.target) > 0) ++counts->cleaned;
          break;
        case Mode::kReembedAll: embed = selected; break;
        case Mode::kFillMissing:
          embed = selected && (!job.selectors.empty() || EmbeddingMissing(data, spec.target));
          break;
      }
      if (embed) {
        Status s = EmbedRecord(type_name, spec, job.spec.dimension, &data);
        if (!s.ok()) return s.WithContext(where);
        ++counts->embedded;
      }
    }
  }
  return out->WriteLine(root.dump(-1, ' ', false, OrderedJson::error_handler_t::replace));
}

using FilePtr = std::unique_ptr<FILE, int (*)(FILE*)>;

// The buffer ::getline grows (malloc'ed; freed here).
struct LineBuffer {
  LineBuffer() = default;
  LineBuffer(const LineBuffer&) = delete;
  LineBuffer& operator=(const LineBuffer&) = delete;
  ~LineBuffer() { std::free(data); }
  char* data = nullptr;
  size_t cap = 0;
};

Result<Counts> RunJob(const Job& job) {
  OG_ASSIGN_OR_RETURN(InputFile in, OpenInputFile(job.input, "seed input"));
  FilePtr f(::fdopen(in.fd(), "rb"), &std::fclose);
  if (f == nullptr) return ErrnoError("cannot read '" + job.input + "'", errno);
  in.release();  // f owns it now
  AtomicOutput out;
  OG_RETURN_IF_ERROR(out.Open(job.output));
  Counts counts;
  LineBuffer buf;
  uint64_t line_no = 0;
  for (;;) {
    errno = 0;
    const ssize_t n = ::getline(&buf.data, &buf.cap, f.get());
    if (n < 0) {
      if (std::ferror(f.get())) return ErrnoError("reading '" + job.input + "'", errno != 0 ? errno : EIO);
      break;
    }
    ++line_no;
    const std::string raw = Trim(std::string_view(buf.data, static_cast<size_t>(n)));
    if (raw.empty()) continue;
    ++counts.records;
    const std::string where = "line " + std::to_string(line_no) + " of '" + job.input + "'";
    OG_RETURN_IF_ERROR(ProcessLine(job, raw, where, &counts, &out));
  }
  OG_RETURN_IF_ERROR(out.Commit());
  return counts;
}

const char* ModeName(const Job& job) {
  switch (job.mode) {
    case Mode::kClean: return "clean";
    case Mode::kReembedAll: return "reembed_all";
    case Mode::kFillMissing: break;
  }
  return job.selectors.empty() ? "fill_missing" : "reembed_selected";
}

int RunEmbed(const EmbedFlags& f) {
  auto job = ResolveJob(f);
  if (!job.ok()) return ReportError(job.status(), f.json);
  auto counts = RunJob(*job);
  if (!counts.ok()) return ReportError(counts.status(), f.json);
  const std::string model = job->mode == Mode::kClean ? "" : ResolvedModel();
  if (f.json) {
    OrderedJson j;
    j["input"] = job->input;
    j["output"] = job->output;
    j["records"] = counts->records;
    j["selected_records"] = counts->selected;
    j["embedded_records"] = counts->embedded;
    j["cleaned_records"] = counts->cleaned;
    j["mode"] = ModeName(*job);
    j["dimension"] = job->spec.dimension;
    j["model"] = model;
    PrintJson(j);
  } else {
    std::printf("embedded %llu records (selected %llu, cleaned %llu) from %s -> %s [%s %ud]\n",
                static_cast<unsigned long long>(counts->embedded), static_cast<unsigned long long>(counts->selected),
                static_cast<unsigned long long>(counts->cleaned), job->input.c_str(), job->output.c_str(),
                ModeName(*job), static_cast<unsigned>(job->spec.dimension));
  }
  return kExitOk;
}

}  // namespace

void AddEmbedCommand(CLI::App& app, CommandAction* run) {
  auto* cmd = app.add_subcommand("embed", "Generate, clean, or refresh explicit seed embeddings (offline JSONL)");
  auto f = std::make_shared<EmbedFlags>();
  cmd->add_option("--seed", f->seed, "Seed manifest (YAML): raw_seed, embedded_seed and the embeddings spec");
  cmd->add_option("--input", f->input, "Raw seed JSONL input (with --output and --spec)");
  cmd->add_option("--output", f->output, "Embedded JSONL output (written whole or not at all)");
  cmd->add_option("--spec", f->spec, "Embedding spec JSON {dimension, types: {Type: {target, fields}}}");
  cmd->add_flag("--clean", f->clean, "Remove the embedding fields instead of generating them");
  cmd->add_flag("--reembed-all", f->reembed_all, "Regenerate the embeddings of every matching record");
  cmd->add_option("--type", f->types, "Only records of this type (repeatable)")->allow_extra_args(false);
  cmd->add_option("--select", f->selectors, "Only records matching Type:field=value or field=value (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--json", f->json, "Print the summary as JSON");
  cmd->callback([=] {
    f->has_seed = cmd->count("--seed") > 0;
    f->has_input = cmd->count("--input") > 0;
    f->has_output = cmd->count("--output") > 0;
    f->has_spec = cmd->count("--spec") > 0;
    *run = [=] { return RunEmbed(*f); };
  });
}

}  // namespace omnigraph::cli
