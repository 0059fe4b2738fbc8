// Vector search for nearest() (docs/search.md): the distance, and the embedding of a String query
// at query time. Thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::engine::search {

// The squared Euclidean (L2) distance of two vectors of the same length: the distance nearest()
// ranks by, as the existing implementation does (lower = closer).
double SquaredL2(std::span<const float> a, std::span<const float> b);

// The deterministic test embedding (OMNIGRAPH_EMBEDDINGS_MOCK): FNV-1a 64 of the text's bytes
// seeds xorshift64 (13, 7, 17); each of `dim` draws is scaled to [-1, 1] in float32; the vector is
// then L2-normalised (left as is when its norm is below float epsilon). Equal to the existing
// implementation's mock, so fixtures agree.
std::vector<float> MockEmbedding(std::string_view text, uint32_t dim);

// Embeds the query text of nearest() into `dim` floats with the provider the environment names
// (OMNIGRAPH_EMBEDDINGS_MOCK, OMNIGRAPH_EMBED_PROVIDER, OMNIGRAPH_EMBED_MODEL and the provider's
// API key). `recorded_model`: the property's @embed model ("" = none); a provider resolving to
// another model is `embedding_config`, as is a missing key or an unknown provider.
Result<std::vector<float>> EmbedQuery(std::string_view text, uint32_t dim, const std::string& recorded_model,
                                      const std::string& property);
// The same for a document (an inserted row's @embed source): Gemini's RETRIEVAL_DOCUMENT task.
Result<std::vector<float>> EmbedDocument(std::string_view text, uint32_t dim, const std::string& recorded_model,
                                         const std::string& property);

}  // namespace omnigraph::engine::search
