// The search room's vector side (vector.h): the L2 distance, the deterministic mock embedding
// (search_spec.md §11 check values), and EmbedQuery's provider selection from the environment and
// its HTTP client, run against a cpp-httplib stub on loopback (request shape, normalisation,
// retries, refusals of malformed answers, timeout and deadline).
#include <gtest/gtest.h>
#include <httplib.h>

#include <array>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error_codes.h"
#include "engine/search/vector.h"

namespace omnigraph::engine::search {
namespace {

using json = nlohmann::json;
using Floats = std::vector<float>;

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

std::string Describe(const Result<Floats>& r) { return r.ok() ? std::string("ok") : r.status().ToString(); }

// Saves every variable the embedder (and libcurl's proxy lookup) reads, unsets them all, and
// restores them when it goes out of scope.
class EnvGuard {
 public:
  EnvGuard() {
    static constexpr const char* kNames[] = {"OMNIGRAPH_EMBEDDINGS_MOCK",
                                             "OMNIGRAPH_EMBED_PROVIDER",
                                             "OMNIGRAPH_EMBED_BASE_URL",
                                             "OMNIGRAPH_EMBED_MODEL",
                                             "OMNIGRAPH_EMBED_TIMEOUT_MS",
                                             "OMNIGRAPH_EMBED_DEADLINE_MS",
                                             "OMNIGRAPH_EMBED_RETRY_ATTEMPTS",
                                             "OMNIGRAPH_EMBED_RETRY_BACKOFF_MS",
                                             "OPENROUTER_API_KEY",
                                             "OPENAI_API_KEY",
                                             "GEMINI_API_KEY",
                                             "http_proxy",
                                             "HTTP_PROXY",
                                             "https_proxy",
                                             "HTTPS_PROXY",
                                             "all_proxy",
                                             "ALL_PROXY",
                                             "no_proxy",
                                             "NO_PROXY"};
    for (const char* name : kNames) Save(name);
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value.has_value()) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

  void Set(const std::string& name, const std::string& value) {
    bool known = false;
    for (const auto& s : saved_) known = known || s.first == name;
    if (!known) Save(name);
    ::setenv(name.c_str(), value.c_str(), 1);
  }

 private:
  void Save(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    saved_.emplace_back(name, v == nullptr ? std::nullopt : std::optional<std::string>(v));
    ::unsetenv(name.c_str());
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// ---------------------------------------------------------------------------------------------
// SquaredL2 and MockEmbedding

TEST(SearchVectorTest, SquaredL2) {
  EXPECT_EQ(SquaredL2(Floats{1, 2, 3}, Floats{4, 6, 3}), 25.0);
  EXPECT_EQ(SquaredL2(Floats{0, 0, 0, 0}, Floats{2, 0, 0, 0}), 4.0);
  EXPECT_EQ(SquaredL2(Floats{-1, 0}, Floats{1, 0}), 4.0);
  EXPECT_EQ(SquaredL2(Floats{}, Floats{}), 0.0);
  // search_spec.md §10.4: from q = [0.1, 0.2, 0.3, 0.4].
  const Floats q = {0.1f, 0.2f, 0.3f, 0.4f};
  EXPECT_NEAR(SquaredL2(q, Floats{0.1f, 0.2f, 0.3f, 0.4f}), 0.0, 1e-6);
  EXPECT_NEAR(SquaredL2(q, Floats{0.2f, 0.3f, 0.4f, 0.5f}), 0.04, 1e-6);
  EXPECT_NEAR(SquaredL2(q, Floats{0.3f, 0.4f, 0.5f, 0.6f}), 0.16, 1e-6);
  EXPECT_NEAR(SquaredL2(q, Floats{0.5f, 0.6f, 0.7f, 0.8f}), 0.64, 1e-6);
  EXPECT_NEAR(SquaredL2(q, Floats{0.8f, 0.7f, 0.6f, 0.5f}), 0.84, 1e-6);
}

TEST(SearchVectorTest, MockEmbeddingMatchesTheReferenceValues) {
  const Floats alpha = MockEmbedding("alpha", 4);
  const Floats beta = MockEmbedding("beta", 4);
  const Floats gamma = MockEmbedding("gamma", 4);
  const std::array<double, 4> want_alpha = {-0.54204881, -0.47179943, 0.16090508, 0.67653376};
  const std::array<double, 4> want_beta = {0.66596329, -0.56221950, -0.41636753, 0.25892115};
  const std::array<double, 4> want_gamma = {0.50424933, 0.25277379, 0.44896162, -0.69301629};
  ASSERT_EQ(alpha.size(), 4u);
  ASSERT_EQ(beta.size(), 4u);
  ASSERT_EQ(gamma.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(alpha[i], want_alpha[i], 1e-6) << i;
    EXPECT_NEAR(beta[i], want_beta[i], 1e-6) << i;
    EXPECT_NEAR(gamma[i], want_gamma[i], 1e-6) << i;
  }
  // §10.6: L2² from alpha.
  EXPECT_NEAR(SquaredL2(alpha, beta), 1.975, 1e-3);
  EXPECT_NEAR(SquaredL2(alpha, gamma), 3.578, 1e-3);
}

TEST(SearchVectorTest, MockEmbeddingIsUnitLengthAndDeterministic) {
  for (const char* text : {"alpha", "beta", "gamma", "", "a longer text with spaces"}) {
    for (uint32_t dim : {1u, 4u, 16u, 1536u}) {
      const Floats v = MockEmbedding(text, dim);
      ASSERT_EQ(v.size(), dim);
      double sum = 0;
      for (float x : v) sum += static_cast<double>(x) * static_cast<double>(x);
      EXPECT_NEAR(sum, 1.0, 1e-5) << text << " " << dim;
      EXPECT_EQ(MockEmbedding(text, dim), v);
    }
  }
  // The text's bytes exactly: case and spaces count.
  EXPECT_NE(MockEmbedding("alpha", 4), MockEmbedding("Alpha", 4));
  EXPECT_NE(MockEmbedding("alpha", 4), MockEmbedding(" alpha", 4));
  // The first draw of "alpha" is negative; alone it normalises to exactly -1.
  EXPECT_EQ(MockEmbedding("alpha", 1), (Floats{-1.0f}));
  EXPECT_TRUE(MockEmbedding("alpha", 0).empty());
}

// ---------------------------------------------------------------------------------------------
// EmbedQuery: provider selection

class EmbedQueryEnvTest : public ::testing::Test {
 protected:
  EnvGuard env_;
};

TEST_F(EmbedQueryEnvTest, MockFlagOrProviderGivesTheMockEmbedding) {
  const Floats want = MockEmbedding("alpha", 4);
  for (const char* flag : {"1", "true", "on", "yes", " TRUE "}) {
    SCOPED_TRACE(flag);
    env_.Set("OMNIGRAPH_EMBEDDINGS_MOCK", flag);
    auto r = EmbedQuery("alpha", 4, "", "Doc.embedding");
    ASSERT_TRUE(r.ok()) << Describe(r);
    EXPECT_EQ(*r, want);
  }
  // The mock flag wins over any provider, even an unknown one.
  env_.Set("OMNIGRAPH_EMBED_PROVIDER", "bogus");
  auto over = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_TRUE(over.ok()) << Describe(over);
  EXPECT_EQ(*over, want);

  ::unsetenv("OMNIGRAPH_EMBEDDINGS_MOCK");
  env_.Set("OMNIGRAPH_EMBED_PROVIDER", "mock");
  auto by_provider = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_TRUE(by_provider.ok()) << Describe(by_provider);
  EXPECT_EQ(*by_provider, want);
  auto beta = EmbedQuery("beta", 8, "", "Doc.embedding");
  ASSERT_TRUE(beta.ok()) << Describe(beta);
  EXPECT_EQ(*beta, MockEmbedding("beta", 8));
}

TEST_F(EmbedQueryEnvTest, NoKeyIsAConfigError) {
  auto r = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingConfig) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "OPENROUTER_API_KEY or OPENAI_API_KEY")) << r.status().message();
  // A false mock flag is no mock.
  env_.Set("OMNIGRAPH_EMBEDDINGS_MOCK", "0");
  auto off = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_FALSE(off.ok());
  EXPECT_EQ(off.status().code(), ErrorCode::kEmbeddingConfig) << off.status().ToString();
  // Gemini names its own key; a key of another provider does not count.
  env_.Set("OMNIGRAPH_EMBED_PROVIDER", "gemini");
  env_.Set("OPENROUTER_API_KEY", "k1");
  auto gemini = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_FALSE(gemini.ok());
  EXPECT_EQ(gemini.status().code(), ErrorCode::kEmbeddingConfig) << gemini.status().ToString();
  EXPECT_TRUE(Contains(gemini.status().message(), "GEMINI_API_KEY")) << gemini.status().message();
}

TEST_F(EmbedQueryEnvTest, UnknownProviderIsAConfigError) {
  env_.Set("OMNIGRAPH_EMBED_PROVIDER", "acme-embed");
  env_.Set("OPENROUTER_API_KEY", "k1");
  auto r = EmbedQuery("alpha", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingConfig) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "acme-embed")) << r.status().message();
}

TEST_F(EmbedQueryEnvTest, RecordedModelMustMatch) {
  env_.Set("OMNIGRAPH_EMBEDDINGS_MOCK", "1");
  env_.Set("OMNIGRAPH_EMBED_MODEL", "test-model-b");
  auto r = EmbedQuery("alpha", 4, "test-model-a", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingConfig) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "test-model-a")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "test-model-b")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "Doc.embedding")) << r.status().message();

  env_.Set("OMNIGRAPH_EMBED_MODEL", "test-model-a");
  auto same = EmbedQuery("alpha", 4, "test-model-a", "Doc.embedding");
  ASSERT_TRUE(same.ok()) << Describe(same);
  EXPECT_EQ(*same, MockEmbedding("alpha", 4));

  // The mock's model is OMNIGRAPH_EMBED_MODEL or "": with none set it differs from a recorded one.
  ::unsetenv("OMNIGRAPH_EMBED_MODEL");
  auto none = EmbedQuery("alpha", 4, "test-model-a", "Doc.embedding");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kEmbeddingConfig) << none.status().ToString();
}

TEST_F(EmbedQueryEnvTest, ZeroDimensionIsRefused) {
  env_.Set("OMNIGRAPH_EMBEDDINGS_MOCK", "1");
  auto r = EmbedQuery("alpha", 0, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().category(), StatusCode::kInvalidArgument) << r.status().ToString();
}

// ---------------------------------------------------------------------------------------------
// EmbedQuery against a loopback stub provider

class EmbedStubTest : public ::testing::Test {
 protected:
  struct Seen {
    std::string path, body, authorization, goog_key;
  };
  // Answers request number `call` (0-based).
  using Responder = std::function<void(size_t call, const httplib::Request&, httplib::Response&)>;

  void SetUp() override {
    // A handler that answers after the client gave up writes to a closed socket.
    std::signal(SIGPIPE, SIG_IGN);
  }

  void TearDown() override {
    if (thread_.joinable()) {
      for (int i = 0; i < 2000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
      server_.stop();
      thread_.join();
    }
  }

  // Starts the stub; every POST is recorded, then answered by `respond`.
  void Start(Responder respond) {
    respond_ = std::move(respond);
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      size_t call = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        call = seen_.size();
        seen_.push_back(
            Seen{req.path, req.body, req.get_header_value("Authorization"), req.get_header_value("x-goog-api-key")});
      }
      respond_(call, req, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 2000 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_TRUE(server_.is_running());
  }

  // Starts a stub that answers every request with `status` and `body`.
  void StartFixed(int status, std::string body) {
    Start([status, body = std::move(body)](size_t, const httplib::Request&, httplib::Response& res) {
      res.status = status;
      res.set_content(body, "application/json");
    });
  }

  std::string Url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }

  // The OpenAI-compatible provider (the default) at the stub, key k1, fast retries.
  void UseOpenAi() {
    env_.Set("OMNIGRAPH_EMBED_PROVIDER", "openai-compatible");
    env_.Set("OMNIGRAPH_EMBED_BASE_URL", Url("/v1"));
    env_.Set("OPENROUTER_API_KEY", "k1");
    env_.Set("OMNIGRAPH_EMBED_RETRY_BACKOFF_MS", "1");
  }

  std::vector<Seen> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }
  void ClearRequests() {
    std::lock_guard<std::mutex> lock(mu_);
    seen_.clear();
  }

  static void Reply(httplib::Response& res, int status, const std::string& body) {
    res.status = status;
    res.set_content(body, "application/json");
  }

  // Starts a stub that answers 200 with the body last given to SetBody().
  void StartSettable() {
    Start([this](size_t, const httplib::Request&, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(body_mu_);
      Reply(res, 200, body_);
    });
  }
  void SetBody(std::string body) {
    std::lock_guard<std::mutex> lock(body_mu_);
    body_ = std::move(body);
  }

  EnvGuard env_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  Responder respond_;
  std::mutex mu_;
  std::vector<Seen> seen_;
  std::mutex body_mu_;
  std::string body_;
};

constexpr const char* kOk3040 = R"({"data":[{"index":0,"embedding":[3,0,4,0]}]})";

TEST_F(EmbedStubTest, OpenAiCompatibleRequestAndNormalisedAnswer) {
  ASSERT_NO_FATAL_FAILURE(StartFixed(200, kOk3040));
  UseOpenAi();
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_TRUE(r.ok()) << Describe(r);
  ASSERT_EQ(r->size(), 4u);
  EXPECT_FLOAT_EQ((*r)[0], 0.6f);
  EXPECT_FLOAT_EQ((*r)[1], 0.0f);
  EXPECT_FLOAT_EQ((*r)[2], 0.8f);
  EXPECT_FLOAT_EQ((*r)[3], 0.0f);

  const std::vector<Seen> seen = Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1/embeddings");
  EXPECT_EQ(seen[0].authorization, "Bearer k1");
  EXPECT_EQ(seen[0].goog_key, "");
  const json want = json::parse(R"({"model":"openai/text-embedding-3-large","input":["the text"],"dimensions":4})");
  // Compared as dumps: gtest would print a json value as a container, element by element.
  EXPECT_EQ(json::parse(seen[0].body, nullptr, false).dump(), want.dump()) << seen[0].body;
}

TEST_F(EmbedStubTest, OpenAiKeyFallbackModelOverrideAndTrailingSlash) {
  ASSERT_NO_FATAL_FAILURE(StartFixed(200, kOk3040));
  UseOpenAi();
  ::unsetenv("OPENROUTER_API_KEY");
  env_.Set("OPENAI_API_KEY", "k2");
  env_.Set("OMNIGRAPH_EMBED_MODEL", "custom/model-x");
  env_.Set("OMNIGRAPH_EMBED_BASE_URL", Url("/v1/"));
  auto r = EmbedQuery("q", 4, "custom/model-x", "Doc.embedding");
  ASSERT_TRUE(r.ok()) << Describe(r);
  const std::vector<Seen> seen = Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1/embeddings");
  EXPECT_EQ(seen[0].authorization, "Bearer k2");
  const json body = json::parse(seen[0].body, nullptr, false);
  ASSERT_TRUE(body.is_object()) << seen[0].body;
  EXPECT_EQ(body.value("model", std::string()), "custom/model-x");
}

TEST_F(EmbedStubTest, RecordedModelMismatchSendsNoRequest) {
  ASSERT_NO_FATAL_FAILURE(StartFixed(200, kOk3040));
  UseOpenAi();
  auto r = EmbedQuery("q", 4, "text-embedding-3-small", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingConfig) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "openai/text-embedding-3-large")) << r.status().message();
  EXPECT_TRUE(Requests().empty());
}

TEST_F(EmbedStubTest, GeminiRequestAndAnswer) {
  ASSERT_NO_FATAL_FAILURE(StartFixed(200, R"({"embedding":{"values":[1,0,0,0]}})"));
  env_.Set("OMNIGRAPH_EMBED_PROVIDER", "gemini");
  env_.Set("OMNIGRAPH_EMBED_BASE_URL", Url("/v1beta"));
  env_.Set("GEMINI_API_KEY", "g1");
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_TRUE(r.ok()) << Describe(r);
  EXPECT_EQ(*r, (Floats{1.0f, 0.0f, 0.0f, 0.0f}));

  const std::vector<Seen> seen = Requests();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].path, "/v1beta/models/gemini-embedding-2:embedContent");
  EXPECT_EQ(seen[0].goog_key, "g1");
  EXPECT_EQ(seen[0].authorization, "");
  const json want = json::parse(R"({"model":"models/gemini-embedding-2","content":{"parts":[{"text":"the text"}]},)"
                                R"("taskType":"RETRIEVAL_QUERY","outputDimensionality":4})");
  EXPECT_EQ(json::parse(seen[0].body, nullptr, false).dump(), want.dump()) << seen[0].body;
}

TEST_F(EmbedStubTest, RetriesTooManyRequestsThenSucceeds) {
  ASSERT_NO_FATAL_FAILURE(Start([](size_t call, const httplib::Request&, httplib::Response& res) {
    if (call < 2) {
      Reply(res, 429, R"({"error":{"message":"slow down"}})");
    } else {
      Reply(res, 200, kOk3040);
    }
  }));
  UseOpenAi();
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_TRUE(r.ok()) << Describe(r);
  EXPECT_FLOAT_EQ((*r)[2], 0.8f);
  EXPECT_EQ(Requests().size(), 3u);
}

TEST_F(EmbedStubTest, RetriesStopAfterTheAttempts) {
  ASSERT_NO_FATAL_FAILURE(Start([](size_t call, const httplib::Request&, httplib::Response& res) {
    if (call < 2) {
      Reply(res, 429, R"({"error":{"message":"slow down"}})");
    } else {
      Reply(res, 200, kOk3040);
    }
  }));
  UseOpenAi();
  env_.Set("OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "2");
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingFailed) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "429")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "slow down")) << r.status().message();
  EXPECT_EQ(Requests().size(), 2u);
}

TEST_F(EmbedStubTest, ServerErrorIsRetried) {
  ASSERT_NO_FATAL_FAILURE(Start([](size_t call, const httplib::Request&, httplib::Response& res) {
    if (call == 0) {
      Reply(res, 503, "unavailable");
    } else {
      Reply(res, 200, kOk3040);
    }
  }));
  UseOpenAi();
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_TRUE(r.ok()) << Describe(r);
  EXPECT_EQ(Requests().size(), 2u);
}

TEST_F(EmbedStubTest, ClientErrorIsNotRetried) {
  ASSERT_NO_FATAL_FAILURE(StartFixed(400, R"({"error":{"message":"bad input"}})"));
  UseOpenAi();
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingFailed) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "bad input")) << r.status().message();
  EXPECT_TRUE(Contains(r.status().message(), "400")) << r.status().message();
  EXPECT_EQ(Requests().size(), 1u);
}

TEST_F(EmbedStubTest, UnusableAnswersFailWithoutRetry) {
  struct Case {
    const char* body;
    const char* message;  // a part of the error message
  };
  const std::vector<Case> cases = {
      {"not json", "no embedding"},
      {R"({"object":"list"})", "no embedding"},
      {R"({"data":[]})", "no embedding"},
      {R"({"data":[{"index":1,"embedding":[1,0,0,0]}]})", "no embedding"},  // no index 0
      {R"({"data":[{"index":0,"embedding":"1,0,0,0"}]})", "no embedding"},  // not an array
      {R"({"data":[{"index":0,"embedding":[1,0,0]}]})", "dimension mismatch"},
      {R"({"data":[{"index":0,"embedding":[1,0,0,0,0]}]})", "dimension mismatch"},
      {R"({"data":[{"index":0,"embedding":[1,"x",0,0]}]})", "not a finite number"},
      {R"({"data":[{"index":0,"embedding":[1,null,0,0]}]})", "not a finite number"},
      {R"({"data":[{"index":0,"embedding":[1e39,0,0,0]}]})", "not a finite number"},  // past float
      {R"({"data":[{"index":0,"embedding":[0,0,0,0]}]})", "zero norm"},
  };
  ASSERT_NO_FATAL_FAILURE(StartSettable());
  UseOpenAi();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body);
    SetBody(c.body);
    ClearRequests();
    auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingFailed) << r.status().ToString();
    EXPECT_TRUE(Contains(r.status().message(), c.message)) << r.status().message();
    EXPECT_EQ(Requests().size(), 1u);
  }
}

TEST_F(EmbedStubTest, AttemptTimeoutFails) {
  ASSERT_NO_FATAL_FAILURE(Start([](size_t, const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    Reply(res, 200, kOk3040);
  }));
  UseOpenAi();
  env_.Set("OMNIGRAPH_EMBED_TIMEOUT_MS", "100");
  env_.Set("OMNIGRAPH_EMBED_RETRY_ATTEMPTS", "1");
  // Without the timeout the answer (valid) would come after 500 ms and the call would succeed.
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingFailed) << r.status().ToString();
}

TEST_F(EmbedStubTest, DeadlineCutsTheAttempts) {
  ASSERT_NO_FATAL_FAILURE(Start([](size_t, const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    Reply(res, 200, kOk3040);
  }));
  UseOpenAi();
  env_.Set("OMNIGRAPH_EMBED_TIMEOUT_MS", "1000");
  env_.Set("OMNIGRAPH_EMBED_DEADLINE_MS", "150");
  // A backoff longer than the deadline: the wait after the first failure runs out the deadline.
  env_.Set("OMNIGRAPH_EMBED_RETRY_BACKOFF_MS", "1000");
  // The attempt's 1000 ms timeout is cut to what is left of the 150 ms deadline.
  auto r = EmbedQuery("the text", 4, "", "Doc.embedding");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kEmbeddingFailed) << r.status().ToString();
  EXPECT_TRUE(Contains(r.status().message(), "deadline")) << r.status().message();
}

}  // namespace
}  // namespace omnigraph::engine::search
