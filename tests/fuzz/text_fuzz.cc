// libFuzzer target for the search analyzer and the inverted index (src/engine/search/, issue 19):
// any bytes (invalid UTF-8, huge words, control characters) must analyze without crashing or
// hanging; tokens are non-empty and at most kMaxTokenBytes * 4 bytes (folding may expand a kept
// word), positions strictly ascend; the index built over the input's lines answers exactly what
// the row-by-row functions answer for a query taken from the input.
// Built when OG_BUILD_FUZZ is ON (clang, -fsanitize=fuzzer); seeds: tests/fuzz/text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/search/rank.h"
#include "engine/search/text.h"
#include "engine/search/text_index.h"

namespace {

using omnigraph::engine::search::Analyze;
using omnigraph::engine::search::AnalyzeUnstemmed;
using omnigraph::engine::search::Bm25Scores;
using omnigraph::engine::search::ContainsAnyToken;
using omnigraph::engine::search::ContainsPhrase;
using omnigraph::engine::search::FuzzyMatches;
using omnigraph::engine::search::kMaxTokenBytes;
using omnigraph::engine::search::TextIndex;
using omnigraph::engine::search::Token;

void Check(bool ok) {
  if (!ok) std::abort();
}

void CheckTokens(const std::vector<Token>& tokens) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    Check(!tokens[i].text.empty());
    Check(tokens[i].text.size() < 4 * kMaxTokenBytes);
    if (i > 0) Check(tokens[i].position > tokens[i - 1].position);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  CheckTokens(Analyze(input));
  CheckTokens(AnalyzeUnstemmed(input));
  // Lines after the first are documents (an empty line is a null one); the first is the query.
  std::vector<std::optional<std::string>> docs;
  std::string_view query = input.substr(0, input.find('\n'));
  for (size_t at = input.find('\n'); at != std::string_view::npos && at < input.size();) {
    const size_t end = input.find('\n', at + 1);
    const std::string_view line =
        input.substr(at + 1, end == std::string_view::npos ? std::string_view::npos : end - at - 1);
    if (line.empty()) {
      docs.emplace_back(std::nullopt);
    } else {
      docs.emplace_back(std::string(line));
    }
    at = end;
  }
  auto doc = [&](size_t i) -> std::optional<std::string_view> {
    if (!docs[i]) return std::nullopt;
    return std::string_view(*docs[i]);
  };
  const TextIndex idx = TextIndex::Build(docs.size(), doc);
  const std::vector<Token> q = Analyze(query), qu = AnalyzeUnstemmed(query);
  std::vector<uint32_t> any, phrase, fuzzy;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!docs[i]) continue;
    const std::vector<Token> d = Analyze(*docs[i]);
    if (ContainsAnyToken(d, q)) any.push_back(static_cast<uint32_t>(i));
    if (ContainsPhrase(d, q)) phrase.push_back(static_cast<uint32_t>(i));
    if (FuzzyMatches(AnalyzeUnstemmed(*docs[i]), qu, 1)) fuzzy.push_back(static_cast<uint32_t>(i));
  }
  Check(idx.MatchAny(q) == any);
  Check(idx.MatchPhrase(q) == phrase);
  Check(idx.MatchFuzzy(qu, 1) == fuzzy);
  Check(idx.Bm25(query) == Bm25Scores(docs.size(), doc, query));
  return 0;
}
