#include "engine/search/vector.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/error_codes.h"
#include "io/http/curl_lib.h"

namespace omnigraph::engine::search {

double SquaredL2(std::span<const float> a, std::span<const float> b) {
  // Eight independent float lanes (the compiler vectorizes them), summed in double at the end.
  const size_t n = std::min(a.size(), b.size());
  float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t k = 0; k < 8; ++k) {
      const float d = a[i + k] - b[i + k];
      lane[k] += d * d;
    }
  }
  double sum = 0;
  for (; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    sum += d * d;
  }
  for (float x : lane) sum += static_cast<double>(x);
  return sum;
}

namespace {

uint64_t Fnv1a64(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t XorShift64(uint64_t x) {
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

// Divides by the float32 norm (computed in double) when it is above float epsilon.
void NormalizeInPlace(std::vector<float>* v) {
  double sum = 0;
  for (float x : *v) sum += static_cast<double>(x) * static_cast<double>(x);
  const float norm = static_cast<float>(std::sqrt(sum));
  if (norm > std::numeric_limits<float>::epsilon()) {
    for (float& x : *v) x /= norm;
  }
}

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return "";
  std::string s(v);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  size_t start = 0;
  while (start < s.size() && std::isspace(static_cast<unsigned char>(s[start]))) ++start;
  return s.substr(start);
}

bool EnvFlag(const char* name) {
  std::string s = Env(name);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true" || s == "yes" || s == "on";
}

uint64_t EnvNumber(const char* name, uint64_t fallback, bool allow_zero) {
  const std::string s = Env(name);
  if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), ::isdigit)) return fallback;
  const uint64_t v = std::stoull(s);
  return v == 0 && !allow_zero ? fallback : v;
}

enum class Provider { kMock, kOpenAiCompatible, kGemini };

struct EmbeddingConfig {
  Provider provider = Provider::kMock;
  std::string name;  // as configured: openai-compatible, openai, gemini, mock
  std::string model, base_url, api_key;
  uint64_t timeout_ms = 30000, deadline_ms = 60000, backoff_ms = 200;
  uint64_t attempts = 4;
};

Result<EmbeddingConfig> ConfigFromEnv() {
  EmbeddingConfig c;
  const std::string alias = Env("OMNIGRAPH_EMBED_PROVIDER");
  if (EnvFlag("OMNIGRAPH_EMBEDDINGS_MOCK") || alias == "mock") {
    c.name = "mock";
    c.model = Env("OMNIGRAPH_EMBED_MODEL");
    return c;
  }
  std::vector<const char*> keys;
  if (alias.empty() || alias == "openai-compatible") {
    c.provider = Provider::kOpenAiCompatible;
    c.name = "openai-compatible";
    c.model = "openai/text-embedding-3-large";
    c.base_url = "https://openrouter.ai/api/v1";
    keys = {"OPENROUTER_API_KEY", "OPENAI_API_KEY"};
  } else if (alias == "openai") {
    c.provider = Provider::kOpenAiCompatible;
    c.name = "openai";
    c.model = "text-embedding-3-large";
    c.base_url = "https://api.openai.com/v1";
    keys = {"OPENAI_API_KEY"};
  } else if (alias == "gemini") {
    c.provider = Provider::kGemini;
    c.name = "gemini";
    c.model = "gemini-embedding-2";
    c.base_url = "https://generativelanguage.googleapis.com/v1beta";
    keys = {"GEMINI_API_KEY"};
  } else {
    return Status(ErrorCode::kEmbeddingConfig,
                  "unknown embedding provider '" + alias + "' (expected openai-compatible|openai|gemini|mock)");
  }
  if (std::string base = Env("OMNIGRAPH_EMBED_BASE_URL"); !base.empty()) c.base_url = base;
  while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
  if (std::string model = Env("OMNIGRAPH_EMBED_MODEL"); !model.empty()) c.model = model;
  for (const char* k : keys) {
    if (c.api_key = Env(k); !c.api_key.empty()) break;
  }
  if (c.api_key.empty()) {
    std::string names;
    for (const char* k : keys) names += (names.empty() ? "" : " or ") + std::string(k);
    return Status(ErrorCode::kEmbeddingConfig, names + " is required for the " + c.name +
                                                   " embedding provider (or set OMNIGRAPH_EMBEDDINGS_MOCK=1 "
                                                   "for deterministic test vectors, or pass a Vector)");
  }
  c.timeout_ms = EnvNumber("OMNIGRAPH_EMBED_TIMEOUT_MS", 30000, false);
  c.deadline_ms = EnvNumber("OMNIGRAPH_EMBED_DEADLINE_MS", 60000, true);
  c.attempts = EnvNumber("OMNIGRAPH_EMBED_RETRY_ATTEMPTS", 4, false);
  c.backoff_ms = EnvNumber("OMNIGRAPH_EMBED_RETRY_BACKOFF_MS", 200, false);
  return c;
}

size_t CollectBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct CurlDeleter {
  const io::CurlLib* lib;
  void operator()(CURL* c) const { lib->easy_cleanup(c); }
};
struct SlistDeleter {
  const io::CurlLib* lib;
  void operator()(curl_slist* l) const { lib->slist_free_all(l); }
};

struct Attempt {
  Status status;
  bool retryable = false;
  std::vector<float> vector;
};

// The provider's error message from an error body ({"error": {"message": ...}}), else the body.
std::string ErrorMessage(const std::string& body) {
  const auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error") && j["error"].is_object() && j["error"].contains("message") &&
      j["error"]["message"].is_string() && !j["error"]["message"].get<std::string>().empty()) {
    return j["error"]["message"].get<std::string>();
  }
  return body.substr(0, 500);
}

Attempt PostOnce(const EmbeddingConfig& c, std::string_view text, uint32_t dim, uint64_t timeout_ms, const char* task) {
  Attempt a;
  auto loaded = io::Curl();
  if (!loaded.ok()) {
    a.status = loaded.status();
    return a;
  }
  const io::CurlLib& lib = **loaded;
  std::string url, payload;
  std::unique_ptr<curl_slist, SlistDeleter> headers(lib.slist_append(nullptr, "Content-Type: application/json"),
                                                    SlistDeleter{&lib});
  if (c.provider == Provider::kGemini) {
    url = c.base_url + "/models/" + c.model + ":embedContent";
    payload = nlohmann::json{
        {"model", "models/" + c.model},
        {"content", {{"parts", {{{"text", std::string(text)}}}}}},
        {"taskType", task},
        {"outputDimensionality",
         dim}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    headers.reset(lib.slist_append(headers.release(), ("x-goog-api-key: " + c.api_key).c_str()));
  } else {
    url = c.base_url + "/embeddings";
    payload = nlohmann::json{{"model", c.model}, {"input", {std::string(text)}}, {"dimensions", dim}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    headers.reset(lib.slist_append(headers.release(), ("Authorization: Bearer " + c.api_key).c_str()));
  }
  std::unique_ptr<CURL, CurlDeleter> curl(lib.easy_init(), CurlDeleter{&lib});
  if (!curl) {
    a.status = InternalError("curl_easy_init failed");
    return a;
  }
  std::string body;
  lib.easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  lib.easy_setopt(curl.get(), CURLOPT_POST, 1L);
  lib.easy_setopt(curl.get(), CURLOPT_POSTFIELDS, payload.data());
  lib.easy_setopt(curl.get(), CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
  lib.easy_setopt(curl.get(), CURLOPT_HTTPHEADER, headers.get());
  lib.easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, static_cast<long>(std::max<uint64_t>(timeout_ms, 1)));
  lib.easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, CollectBody);
  lib.easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  const CURLcode rc = lib.easy_perform(curl.get());
  if (rc != CURLE_OK) {
    a.status = Status(ErrorCode::kEmbeddingFailed, std::string("embedding request failed: ") + lib.easy_strerror(rc));
    a.retryable = true;  // timeouts and connection failures
    return a;
  }
  long http = 0;
  lib.easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &http);
  if (http < 200 || http > 299) {
    a.status = Status(ErrorCode::kEmbeddingFailed,
                      "embedding request failed with status " + std::to_string(http) + ": " + ErrorMessage(body));
    a.retryable = http >= 500 || http == 429;
    return a;
  }
  const auto j = nlohmann::json::parse(body, nullptr, false);
  const nlohmann::json* values = nullptr;
  if (c.provider == Provider::kGemini) {
    if (j.is_object() && j.contains("embedding") && j["embedding"].is_object() && j["embedding"].contains("values")) {
      values = &j["embedding"]["values"];
    }
  } else if (j.is_object() && j.contains("data") && j["data"].is_array()) {
    for (const auto& d : j["data"]) {
      const bool first = !d.contains("index") || (d["index"].is_number_integer() && d["index"].get<int64_t>() == 0);
      if (d.is_object() && first && d.contains("embedding")) {
        values = &d["embedding"];
        break;
      }
    }
  }
  if (values == nullptr || !values->is_array()) {
    a.status = Status(ErrorCode::kEmbeddingFailed, "embedding response decode failed: no embedding in the answer");
    return a;
  }
  if (values->size() != dim) {
    a.status = Status(ErrorCode::kEmbeddingFailed, "embedding dimension mismatch: expected " + std::to_string(dim) +
                                                       ", got " + std::to_string(values->size()));
    return a;
  }
  double sum = 0;
  for (size_t i = 0; i < values->size(); ++i) {
    const auto& v = (*values)[i];
    const double x = v.is_number() ? v.get<double>() : std::numeric_limits<double>::quiet_NaN();
    if (!std::isfinite(x) || !std::isfinite(static_cast<float>(x))) {
      a.status =
          Status(ErrorCode::kEmbeddingFailed, "embedding component " + std::to_string(i) + " is not a finite number");
      return a;
    }
    a.vector.push_back(static_cast<float>(x));
    sum += x * x;
  }
  if (static_cast<float>(std::sqrt(sum)) <= std::numeric_limits<float>::epsilon()) {
    a.status = Status(ErrorCode::kEmbeddingFailed, "embedding has zero norm (no direction)");
    a.vector.clear();
    return a;
  }
  NormalizeInPlace(&a.vector);
  return a;
}

}  // namespace

std::vector<float> MockEmbedding(std::string_view text, uint32_t dim) {
  uint64_t seed = Fnv1a64(text);
  std::vector<float> v;
  v.reserve(dim);
  constexpr double kMax = static_cast<double>(std::numeric_limits<uint64_t>::max());
  for (uint32_t i = 0; i < dim; ++i) {
    seed = XorShift64(seed);
    const float ratio = static_cast<float>(static_cast<double>(seed) / kMax);
    v.push_back(ratio * 2.0f - 1.0f);
  }
  NormalizeInPlace(&v);
  return v;
}

namespace {

Result<std::vector<float>> Embed(std::string_view text, uint32_t dim, const std::string& recorded_model,
                                 const std::string& property, const char* task) {
  if (dim == 0) return InvalidArgumentError("embedding dimension must be greater than zero");
  OG_ASSIGN_OR_RETURN(EmbeddingConfig c, ConfigFromEnv());
  if (!recorded_model.empty() && c.model != recorded_model) {
    return Status(ErrorCode::kEmbeddingConfig, "'" + property + "': its stored vectors were embedded with model '" +
                                                   recorded_model + "', but the embedder resolves to '" + c.model +
                                                   "'. Set OMNIGRAPH_EMBED_MODEL='" + recorded_model +
                                                   "' (and the matching provider) or re-embed the stored vectors.");
  }
  if (c.provider == Provider::kMock) return MockEmbedding(text, dim);
  // Every attempt and backoff within the deadline (0 = none); an attempt's timeout is cut to what
  // is left of it.
  const auto start = std::chrono::steady_clock::now();
  auto left_ms = [&]() -> uint64_t {
    if (c.deadline_ms == 0) return std::numeric_limits<uint64_t>::max();
    const auto spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    return spent >= static_cast<int64_t>(c.deadline_ms) ? 0 : c.deadline_ms - static_cast<uint64_t>(spent);
  };
  Status last;
  for (uint64_t attempt = 1;; ++attempt) {
    const uint64_t left = left_ms();
    if (left == 0) {
      return Status(ErrorCode::kEmbeddingFailed, "embedding deadline exceeded after " + std::to_string(c.deadline_ms) +
                                                     " ms (provider " + c.name + ", model " + c.model + ")" +
                                                     (last.ok() ? "" : ": " + last.message()));
    }
    Attempt a = PostOnce(c, text, dim, std::min(c.timeout_ms, left), task);
    if (a.status.ok()) return std::move(a.vector);
    last = a.status;
    if (!a.retryable || attempt >= c.attempts) return a.status;
    const uint64_t delay = c.backoff_ms << std::min<uint64_t>(attempt - 1, 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(delay, left_ms())));
  }
}

}  // namespace

Result<std::vector<float>> EmbedQuery(std::string_view text, uint32_t dim, const std::string& recorded_model,
                                      const std::string& property) {
  return Embed(text, dim, recorded_model, property, "RETRIEVAL_QUERY");
}

Result<std::vector<float>> EmbedDocument(std::string_view text, uint32_t dim, const std::string& recorded_model,
                                         const std::string& property) {
  return Embed(text, dim, recorded_model, property, "RETRIEVAL_DOCUMENT");
}

}  // namespace omnigraph::engine::search
