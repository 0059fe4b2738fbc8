// The ANN index object (engine/search/vector_index.h): recall against brute force, a round trip
// through its encoding, and every damaged or foreign object refused with a typed error.
#include "engine/search/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "common/error_codes.h"
#include "common/hash.h"
#include "engine/search/vector.h"

namespace omnigraph::engine::search {
namespace {

struct Data {
  uint32_t dim = 0;
  std::vector<float> values;
  std::vector<uint64_t> labels;
  std::span<const float> at(size_t i) const { return {values.data() + i * dim, dim}; }
};

Data Random(size_t n, uint32_t dim, uint32_t seed) {
  Data d;
  d.dim = dim;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  d.values.resize(n * dim);
  for (float& f : d.values) f = u(rng);
  for (size_t i = 0; i < n; ++i) d.labels.push_back((uint64_t{7} << 32) | (i * 3));  // row-address-like
  return d;
}

Result<VectorIndex> BuildOf(const Data& d, HnswParams p = {}) {
  return VectorIndex::Build(
      d.dim, d.labels, [&](size_t i) { return d.at(i); }, p);
}

std::vector<uint64_t> BruteForce(const Data& d, std::span<const float> q, size_t k) {
  std::vector<std::pair<double, uint64_t>> all;
  for (size_t i = 0; i < d.labels.size(); ++i) all.emplace_back(SquaredL2(d.at(i), q), d.labels[i]);
  std::partial_sort(all.begin(), all.begin() + static_cast<ptrdiff_t>(k), all.end());
  std::vector<uint64_t> out;
  for (size_t i = 0; i < k; ++i) out.push_back(all[i].second);
  return out;
}

double RecallOf(const VectorIndex& idx, const Data& d, size_t k, size_t ef) {
  const Data queries = Random(50, d.dim, 99);
  size_t hit = 0;
  for (size_t i = 0; i < 50; ++i) {
    auto truth = BruteForce(d, queries.at(i), k);
    auto got = idx.Search(queries.at(i), k, ef);
    EXPECT_EQ(got.size(), k);
    EXPECT_TRUE(std::is_sorted(got.begin(), got.end()));
    for (const auto& [dist, label] : got) hit += std::count(truth.begin(), truth.end(), label);
  }
  return static_cast<double>(hit) / static_cast<double>(50 * k);
}

TEST(VectorIndexTest, FindsTheNearestLabels) {
  const Data d = Random(4000, 16, 1);
  auto idx = BuildOf(d, HnswParams{.threads = 2});
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  EXPECT_EQ(idx->size(), 4000u);
  EXPECT_EQ(idx->dim(), 16u);
  EXPECT_GT(idx->memory_bytes(), 4000u * 16 * 4);
  EXPECT_GE(RecallOf(*idx, d, 10, 128), 0.95);
  // A point of the index is its own nearest, at distance 0.
  auto self = idx->Search(d.at(1234), 1, 64);
  ASSERT_EQ(self.size(), 1u);
  EXPECT_EQ(self[0].second, d.labels[1234]);
  EXPECT_EQ(self[0].first, 0.0f);
}

TEST(VectorIndexTest, SmallAndEmptyIndexes) {
  const Data d = Random(5, 4, 2);
  auto idx = BuildOf(d);
  ASSERT_TRUE(idx.ok());
  EXPECT_EQ(idx->Search(d.at(0), 10, 64).size(), 5u);                   // never more than it holds
  EXPECT_TRUE(idx->Search(std::vector<float>(3, 0.f), 1, 64).empty());  // wrong length: nothing
  auto empty = VectorIndex::Build(4, {}, [](size_t) { return std::span<const float>(); });
  ASSERT_TRUE(empty.ok());
  auto bytes = empty->Encode();
  ASSERT_TRUE(bytes.ok());
  auto back = VectorIndex::Decode(*bytes, 4, "k");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), 0u);
  EXPECT_TRUE(back->Search(d.at(0), 3, 64).empty());
}

TEST(VectorIndexTest, RefusesBadInput) {
  EXPECT_EQ(VectorIndex::Build(0, {}, [](size_t) { return std::span<const float>(); }).status().code(),
            ErrorCode::kInvalidArgument);
  const Data d = Random(3, 4, 3);
  std::vector<float> short_vec(3, 0.f);
  auto bad =
      VectorIndex::Build(4, d.labels, [&](size_t i) { return i == 2 ? std::span<const float>(short_vec) : d.at(i); });
  EXPECT_EQ(bad.status().code(), ErrorCode::kInvalidArgument);
}

TEST(VectorIndexTest, RoundTripsThroughItsObject) {
  const Data d = Random(2000, 12, 4);
  auto idx = BuildOf(d);
  ASSERT_TRUE(idx.ok());
  auto bytes = idx->Encode();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  auto back = VectorIndex::Decode(*bytes, 12, "idx/x/vector.hnsw");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), 2000u);
  const Data queries = Random(10, 12, 5);
  for (size_t i = 0; i < 10; ++i) EXPECT_EQ(idx->Search(queries.at(i), 10, 64), back->Search(queries.at(i), 10, 64));
}

// A folded index (rows added, labels marked deleted) round-trips with its deleted marks counted
// (hnswlib's loader leaves that count to us) and never returns a deleted label.
TEST(VectorIndexTest, ExtendRelabelAndReload) {
  const Data d = Random(300, 8, 7);
  auto idx = BuildOf(d);
  ASSERT_TRUE(idx.ok());
  const std::vector<uint64_t> gone(d.labels.begin(), d.labels.begin() + 10);
  const Data more = Random(5, 8, 8);
  std::vector<uint64_t> fresh;
  for (uint64_t i = 0; i < 5; ++i) fresh.push_back((uint64_t{9} << 32) | i);
  ASSERT_TRUE(idx->Relabel(std::vector<std::pair<uint64_t, uint64_t>>{{d.labels[20], uint64_t{77} << 32}}).ok());
  EXPECT_EQ(idx->Relabel(std::vector<std::pair<uint64_t, uint64_t>>{{12345, 1}}).code(), ErrorCode::kInvalidArgument);
  ASSERT_TRUE(idx->Extend(gone, fresh, [&](size_t i) { return more.at(i); }).ok());
  EXPECT_EQ(idx->deleted(), 10u);
  auto back = VectorIndex::Decode(std::move(idx->Encode()).value(), 8, "k");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->size(), 305u);
  EXPECT_EQ(back->deleted(), 10u);
  EXPECT_EQ(back->Labels().size(), 295u);
  for (size_t q = 0; q < 10; ++q) {
    auto got = back->Search(d.at(q), 5, 64);  // the deleted row's own vector
    for (const auto& [dist, label] : got) EXPECT_NE(label, d.labels[q]);
  }
  auto renamed = back->Search(d.at(20), 1, 64);
  ASSERT_EQ(renamed.size(), 1u);
  EXPECT_EQ(renamed[0].second, uint64_t{77} << 32);
  auto added = back->Search(more.at(3), 1, 64);
  ASSERT_EQ(added.size(), 1u);
  EXPECT_EQ(added[0].second, fresh[3]);
}

TEST(VectorIndexTest, DamagedOrForeignObjectsAreTypedErrors) {
  const Data d = Random(300, 8, 6);
  auto idx = BuildOf(d);
  ASSERT_TRUE(idx.ok());
  const std::string good = std::move(idx->Encode()).value();
  auto code = [](const std::string& bytes, uint32_t dim) {
    return VectorIndex::Decode(bytes, dim, "the-key").status();
  };
  EXPECT_EQ(code(good, 9).code(), ErrorCode::kCorrupt);  // another dimension
  EXPECT_EQ(code("", 8).code(), ErrorCode::kCorrupt);
  EXPECT_EQ(code(good.substr(0, good.size() / 2), 8).code(), ErrorCode::kCorrupt);
  for (size_t at : {size_t{0}, size_t{20}, size_t{40}, good.size() / 2, good.size() - 1}) {
    std::string flipped = good;
    flipped[at] ^= 0x01;
    Status s = code(flipped, 8);
    EXPECT_EQ(s.code(), ErrorCode::kCorrupt) << at;
    EXPECT_NE(s.message().find("the-key"), std::string::npos) << s.ToString();
  }
  // A newer format version with a valid checksum: format_too_new.
  std::string newer = good;
  const uint32_t v = VectorIndex::kFormatVersion + 1;
  std::memcpy(newer.data() + 8, &v, 4);
  const uint64_t h = XxHash64(std::string_view(newer).substr(0, newer.size() - 8));
  std::memcpy(newer.data() + newer.size() - 8, &h, 8);
  EXPECT_EQ(code(newer, 8).code(), ErrorCode::kFormatTooNew);
  // A valid checksum over a body hnswlib cannot read: corrupt, never a crash.
  std::string garbage = good.substr(0, 32) + std::string(64, '\x7f');
  const uint64_t gh = XxHash64(garbage);
  garbage.append(reinterpret_cast<const char*>(&gh), 8);
  EXPECT_EQ(code(garbage, 8).code(), ErrorCode::kCorrupt);
}

}  // namespace
}  // namespace omnigraph::engine::search
