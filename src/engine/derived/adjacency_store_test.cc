// Persisted ordinals and CSR adjacency (adjacency_store.h, docs/format/adjacency.md): the codec
// round trip equals the built structures; truncated, damaged, hostile and newer objects are
// rejected; a fresh cache on a fresh handle loads instead of building (counted at the store); a
// read-only handle writes nothing; damaged persisted objects give the right answers (rebuilt).
#include "engine/derived/adjacency_store.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <tuple>

#include "common/error_codes.h"
#include "common/hash.h"
#include "compiler/type_checker.h"
#include "engine/exec/executor.h"
#include "engine/exec/reference_eval.h"
#include "engine/graph/graph_layout.h"
#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/counting_store.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node P { name: String @key, age: I32? }
node T { slug: String @key }
edge Knows: P -> P { w: I64? }
edge Tagged: P -> T
)";

// Random graph: persons with self loops and parallel edges, tags, then deletes and a second load
// (deletion vectors, several fragments: ordinals are not row addresses).
std::string GraphData(int persons, int edges, uint32_t seed, int first = 0) {
  std::mt19937 rng(seed);
  std::string out;
  for (int i = first; i < first + persons; ++i) {
    out += R"({"type":"P","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 90) + "}}\n";
  }
  if (first == 0) {
    for (int i = 0; i < 10; ++i) {
      out += R"({"type":"T","data":{"slug":"t)" + std::to_string(i) + "\"}}\n";
    }
  }
  // Endpoints among this call's persons (earlier ones may be deleted).
  for (int e = 0; e < edges; ++e) {
    const int a = first + static_cast<int>(rng() % persons);
    const int b = e % 17 == 0 ? a : first + static_cast<int>(rng() % persons);
    out += R"({"edge":"Knows","from":"p)" + std::to_string(a) + R"(","to":"p)" + std::to_string(b) +
           R"(","data":{"w":)" + std::to_string(e) + "}}\n";
    if (e % 3 == 0) {
      out +=
          R"({"edge":"Tagged","from":"p)" + std::to_string(a) + R"(","to":"t)" + std::to_string(rng() % 10) + "\"}\n";
    }
  }
  return out;
}

void LoadInto(Graph& g, const std::string& data) {
  auto r = LoadNdjson(g, data, LoadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

void Mutate(Graph& g, const std::string& src) {
  auto r = RunMutation(g, src, "");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::string Encoded(const TableOrdinals& o) {
  std::string out;
  EXPECT_TRUE(AdjacencyCodec::EncodeOrdinals(o, [&](std::string_view b) {
                out.append(b);
                return Status::Ok();
              }).ok());
  return out;
}
std::string Encoded(const Csr& c, uint64_t edge_rows) {
  std::string out;
  EXPECT_TRUE(AdjacencyCodec::EncodeCsr(c, edge_rows, [&](std::string_view b) {
                out.append(b);
                return Status::Ok();
              }).ok());
  return out;
}

// Rewrites the trailer so that a deliberately changed object passes the checksum.
void Reseal(std::string* bytes) {
  const uint64_t sum = XxHash64(std::string_view(*bytes).substr(0, bytes->size() - 8));
  std::memcpy(bytes->data() + bytes->size() - 8, &sum, 8);
}
void SetU64(std::string* bytes, size_t at, uint64_t v) { std::memcpy(bytes->data() + at, &v, 8); }
void SetU32(std::string* bytes, size_t at, uint32_t v) { std::memcpy(bytes->data() + at, &v, 4); }

void ExpectSameOrdinals(const TableOrdinals& a, const TableOrdinals& b, const std::vector<uint64_t>& addresses) {
  ASSERT_EQ(a.size(), b.size());
  for (uint32_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.id(i), b.id(i));
    ASSERT_EQ(b.Find(a.id(i)), std::optional<uint32_t>(i));
  }
  ASSERT_EQ(addresses.size(), a.size());
  for (uint32_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a.FromAddress(addresses[i]), std::optional<uint32_t>(i));
    ASSERT_EQ(b.FromAddress(addresses[i]), std::optional<uint32_t>(i));
  }
  EXPECT_EQ(b.Find("nope"), std::nullopt);
  EXPECT_EQ(b.Find(""), std::nullopt);
  EXPECT_EQ(b.FromAddress(~uint64_t{0}), std::nullopt);
}

void ExpectSameCsr(const Csr& a, const Csr& b) {
  ASSERT_EQ(a.num_src(), b.num_src());
  ASSERT_EQ(a.num_dst(), b.num_dst());
  ASSERT_EQ(a.num_edges(), b.num_edges());
  ASSERT_EQ(a.same_table(), b.same_table());
  auto eq = [](std::span<const uint32_t> x, std::span<const uint32_t> y) {
    return std::equal(x.begin(), x.end(), y.begin(), y.end());
  };
  for (uint32_t s = 0; s < a.num_src(); ++s) {
    ASSERT_TRUE(eq(a.OutNodes(s), b.OutNodes(s))) << s;
    ASSERT_TRUE(eq(a.OutEdges(s), b.OutEdges(s))) << s;
    ASSERT_EQ(a.HasSelfLoop(s), b.HasSelfLoop(s)) << s;
    for (uint32_t d : a.OutNodes(s)) ASSERT_TRUE(b.HasEdge(s, d));
  }
  for (uint32_t d = 0; d < a.num_dst(); ++d) {
    ASSERT_TRUE(eq(a.InNodes(d), b.InNodes(d))) << d;
    ASSERT_TRUE(eq(a.InEdges(d), b.InEdges(d))) << d;
  }
}

class AdjacencyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    mem_ = std::make_shared<io::MemoryStore>();
    counting_ = std::make_shared<io::CountingStore>(mem_);
    auto g = Graph::Init(counting_, kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    LoadInto(**g, GraphData(600, 2500, 7));
    Mutate(**g, "query d() { delete P where name = \"p5\" }");
    Mutate(**g, "query d() { delete P where name = \"p77\" }");
    LoadInto(**g, GraphData(100, 400, 8, 600));
  }
  // A new handle (its own table, manifest and fragment caches), as a new process would have.
  std::unique_ptr<Graph> Open(bool read_only = false) {
    GraphOptions o;
    o.read_only = read_only;
    auto g = Graph::Open(counting_, o);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? std::move(g).value() : nullptr;
  }
  std::vector<std::string> DerivedKeys() {
    auto all = mem_->List(kDerivedPrefix);
    EXPECT_TRUE(all.ok());
    std::vector<std::string> keys;
    for (const auto& m : *all) keys.push_back(m.key);
    return keys;
  }
  // The rows of a query on the executor (with `cache`), which must equal the reference's.
  std::vector<std::string> Run(const Snapshot& snap, const std::string& src, GraphReadCache* cache) {
    auto qs = compiler::CompileQueries(snap.catalog(), src);
    EXPECT_TRUE(qs.ok()) << qs.status().ToString();
    if (!qs.ok()) return {};
    auto got = ExecuteQuery(snap, qs->front(), {}, 0, cache);
    auto want = EvaluateReference(snap, qs->front(), {}, 0);
    EXPECT_TRUE(got.ok() && want.ok()) << got.status().ToString() << want.status().ToString();
    if (!got.ok() || !want.ok()) return {};
    std::vector<std::string> a, b;
    for (auto [res, out] : {std::pair{&*got, &a}, std::pair{&*want, &b}}) {
      for (const auto& row : res->rows) {
        std::string line;
        for (const auto& v : row) line += v.ToString() + "|";
        out->push_back(line);
      }
      std::sort(out->begin(), out->end());
    }
    EXPECT_EQ(a, b) << src;
    return a;
  }
  const std::vector<std::string> kQueries = {
      R"(query q() { match { $a: P { name: "p1" } $a knows $b } return { $b.name } })",
      R"(query q() { match { $a: P $a knows $b $b knows $c } return { count($c) as n } })",
      R"(query q() { match { $a: P { name: "p9" } $b knows $a } return { $b.name, $b.age } })",
      R"(query q() { match { $a: P $a tagged $t } return { $t.slug, count($a) as n } })",
      R"(query q() { match { $a: P { name: "p3" } $a knows{1,3} $b } return { count($b) as n } })",
  };

  std::shared_ptr<io::MemoryStore> mem_;
  std::shared_ptr<io::CountingStore> counting_;
};

TEST_F(AdjacencyStoreTest, OrdinalsRoundTrip) {
  auto g = Open();
  auto snap = g->Head();
  ASSERT_TRUE(snap.ok());
  for (const char* type : {"P", "T"}) {
    auto v = snap->Table(type);
    ASSERT_TRUE(v.ok());
    auto built = TableOrdinals::Build(*v);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    table::ScanOptions so;
    so.columns = std::vector<std::string>{};
    so.with_row_address = true;
    auto rows = v->ScanAll(so);
    ASSERT_TRUE(rows.ok());
    auto a = rows->ColumnByName(table::kRowAddressColumn)->u64_values();
    const std::vector<uint64_t> addresses(a.begin(), a.end());
    const std::string bytes = Encoded(**built);
    auto decoded = AdjacencyCodec::DecodeOrdinals(bytes, v->row_count());
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    ExpectSameOrdinals(**built, **decoded, addresses);
    // The cache charge covers the arrays (all but header, trailer and padding).
    EXPECT_GE((*decoded)->memory_bytes() + 128, bytes.size());
    // Deterministic: a racing writer writes the same bytes.
    EXPECT_EQ(Encoded(**decoded), bytes);
    // The row count of the table version is part of the contract.
    EXPECT_EQ(AdjacencyCodec::DecodeOrdinals(bytes, v->row_count() + 1).status().code(), ErrorCode::kCorrupt);
  }
  EXPECT_EQ((*TableOrdinals::Build(*snap->Table("P")))->size(), 698u);
}

TEST_F(AdjacencyStoreTest, CsrRoundTrip) {
  auto g = Open();
  auto snap = g->Head();
  ASSERT_TRUE(snap.ok());
  for (auto [edge, to] : {std::pair{"Knows", "P"}, std::pair{"Tagged", "T"}}) {
    auto e = snap->Table(edge);
    auto f = snap->Table("P");
    auto t = snap->Table(to);
    ASSERT_TRUE(e.ok() && f.ok() && t.ok());
    auto fo = TableOrdinals::Build(*f);
    auto tord = TableOrdinals::Build(*t);
    ASSERT_TRUE(fo.ok() && tord.ok());
    const bool same = std::string(to) == "P";
    auto built = Csr::Build(*e, **fo, **tord, same);
    ASSERT_TRUE(built.ok()) << built.status().ToString();
    ASSERT_GT((*built)->num_edges(), 0u);
    const std::string bytes = Encoded(**built, e->row_count());
    const CsrShape shape{f->row_count(), t->row_count(), e->row_count(), same};
    auto decoded = AdjacencyCodec::DecodeCsr(bytes, shape);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    ExpectSameCsr(**built, **decoded);
    EXPECT_GE((*decoded)->memory_bytes() + 128, bytes.size());
    EXPECT_EQ(Encoded(**decoded, e->row_count()), bytes);
    if (same) {
      bool loops = false;
      for (uint32_t n = 0; n < (*decoded)->num_src(); ++n) {
        loops = loops || (*decoded)->HasSelfLoop(n);
      }
      EXPECT_TRUE(loops);
    }
    // Another shape (e.g. other endpoint versions) is refused.
    for (CsrShape other : {CsrShape{shape.num_src + 1, shape.num_dst, shape.edge_rows, same},
                           CsrShape{shape.num_src, shape.num_dst + 1, shape.edge_rows, same},
                           CsrShape{shape.num_src, shape.num_dst, shape.edge_rows + 1, same},
                           CsrShape{shape.num_src, shape.num_dst, shape.edge_rows, !same}}) {
      EXPECT_EQ(AdjacencyCodec::DecodeCsr(bytes, other).status().code(), ErrorCode::kCorrupt);
    }
  }
}

TEST_F(AdjacencyStoreTest, RejectsTruncatedDamagedHostileAndNewerObjects) {
  auto g = Open();
  auto snap = g->Head();
  auto e = snap->Table("Knows");
  auto p = snap->Table("P");
  ASSERT_TRUE(e.ok() && p.ok());
  auto ord = TableOrdinals::Build(*p);
  ASSERT_TRUE(ord.ok());
  auto csr = Csr::Build(*e, **ord, **ord, true);
  ASSERT_TRUE(csr.ok());
  const uint64_t n = p->row_count();
  const CsrShape shape{n, n, e->row_count(), true};
  const std::string ob = Encoded(**ord), cb = Encoded(**csr, e->row_count());
  auto ord_code = [&](const std::string& b) {
    auto r = AdjacencyCodec::DecodeOrdinals(b, n);
    return r.ok() ? std::string("ok") : std::string(r.status().code_string());
  };
  auto csr_code = [&](const std::string& b) {
    auto r = AdjacencyCodec::DecodeCsr(b, shape);
    return r.ok() ? std::string("ok") : std::string(r.status().code_string());
  };
  ASSERT_EQ(ord_code(ob), "ok");
  ASSERT_EQ(csr_code(cb), "ok");
  // Every truncation (all short prefixes, then a stride) and every flipped byte (stride).
  for (size_t len = 0; len < ob.size(); len += len < 256 ? 1 : 97) {
    EXPECT_EQ(ord_code(ob.substr(0, len)), "corrupt") << len;
  }
  for (size_t len = 0; len < cb.size(); len += len < 256 ? 1 : 89) {
    EXPECT_EQ(csr_code(cb.substr(0, len)), "corrupt") << len;
  }
  EXPECT_EQ(ord_code(ob + std::string(8, '\0')), "corrupt");
  for (size_t at = 0; at < ob.size(); at += at < 64 ? 1 : 31) {
    std::string b = ob;
    b[at] ^= 0x5a;
    EXPECT_NE(ord_code(b), "ok") << at;
  }
  for (size_t at = 0; at < cb.size(); at += at < 64 ? 1 : 29) {
    std::string b = cb;
    b[at] ^= 0x01;
    EXPECT_NE(csr_code(b), "ok") << at;
  }
  // A newer version is format_too_new (whatever follows it); version 0 is corrupt.
  auto code_of = [&](const std::string& b) { return b.compare(0, 8, ob, 0, 8) == 0 ? ord_code(b) : csr_code(b); };
  for (const std::string& original : {ob, cb}) {
    std::string b = original;
    SetU32(&b, 8, 2);
    Reseal(&b);
    EXPECT_EQ(code_of(b), "format_too_new");
    SetU32(&b, 8, 0);
    Reseal(&b);
    EXPECT_EQ(code_of(b), "corrupt");
  }
  // Hostile counts with a valid checksum: rejected before any allocation of their size.
  for (auto [at, v] : {std::pair<size_t, uint64_t>{24, uint64_t{1} << 62},
                       {24, ob.size()},
                       {32, uint64_t{1} << 40},
                       {32, 0},
                       {16, ~uint64_t{0}}}) {
    std::string b = ob;
    SetU64(&b, at, v);
    Reseal(&b);
    EXPECT_EQ(ord_code(b), "corrupt") << at;
  }
  for (auto [at, v] :
       {std::pair<size_t, uint64_t>{32, uint64_t{1} << 62}, {32, e->row_count() + 1}, {32, 0}, {40, ~uint64_t{0}}}) {
    std::string b = cb;
    SetU64(&b, at, v);
    Reseal(&b);
    EXPECT_EQ(csr_code(b), "corrupt") << at;
  }
  std::string flags = cb;
  SetU32(&flags, 12, 3);
  Reseal(&flags);
  EXPECT_EQ(csr_code(flags), "corrupt");
  // Values that would index memory out of range, with a valid checksum (a checksum is not a proof).
  const size_t slots_at = 40 + 8 * (n + 1) + 8 * n + ((4 * n + 7) & ~size_t{7});
  std::string slot = ob;
  for (size_t i = 0; i < TableOrdinals::SlotCount(n); ++i) {
    uint64_t s;
    std::memcpy(&s, slot.data() + slots_at + 8 * i, 8);
    if (s != 0) {
      SetU64(&slot, slots_at + 8 * i, (s & ~uint64_t{0xffffffff}) | (n + 1));
      break;
    }
  }
  Reseal(&slot);
  EXPECT_EQ(ord_code(slot), "corrupt");
  std::string offsets = ob;
  SetU64(&offsets, 40 + 8, ~uint64_t{0} >> 1);  // id offset 1 far past the id bytes
  Reseal(&offsets);
  EXPECT_EQ(ord_code(offsets), "corrupt");
  const size_t out_nodes_at = 48 + 8 * (n + 1) + 8 * (n + 1);
  std::string node = cb;
  SetU32(&node, out_nodes_at, static_cast<uint32_t>(n));  // a destination ordinal == num_dst
  Reseal(&node);
  EXPECT_EQ(csr_code(node), "corrupt");
  // An out-list out of order (two distinct neighbours swapped): binary searches would miss edges.
  std::string unordered = cb;
  bool swapped = false;
  for (uint32_t s = 0; s < n && !swapped; ++s) {
    auto nodes = (*csr)->OutNodes(s);
    if (nodes.size() < 2 || nodes[0] == nodes[1]) continue;
    uint64_t first;
    std::memcpy(&first, cb.data() + 48 + 8 * s, 8);
    SetU32(&unordered, out_nodes_at + 4 * first, nodes[1]);
    SetU32(&unordered, out_nodes_at + 4 * (first + 1), nodes[0]);
    swapped = true;
  }
  ASSERT_TRUE(swapped);
  Reseal(&unordered);
  EXPECT_EQ(csr_code(unordered), "corrupt");
  std::string edge = cb;
  SetU32(&edge, out_nodes_at + ((4 * (*csr)->num_edges() + 7) & ~uint64_t{7}), static_cast<uint32_t>(e->row_count()));
  Reseal(&edge);
  EXPECT_EQ(csr_code(edge), "corrupt");
}

TEST_F(AdjacencyStoreTest, SecondColdCacheLoadsInsteadOfBuilding) {
  ASSERT_TRUE(DerivedKeys().empty());
  auto cold_tables = [&](Graph& g) {
    auto snap = g.Head();
    EXPECT_TRUE(snap.ok());
    return std::make_tuple(*snap, *snap->Table("Tagged"), *snap->Table("P"), *snap->Table("T"));
  };
  // First cold process: builds from the tables and writes the three objects.
  auto g1 = Open();
  auto [snap1, e1, p1, t1] = cold_tables(*g1);
  GraphReadCache first;
  counting_->Reset();
  auto built = first.CsrFor(e1, p1, t1, snap1.derived());
  ASSERT_TRUE(built.ok()) << built.status().ToString();
  io::StoreCounts c1 = counting_->counts();
  // Three absent objects, then the tables' fragments.
  EXPECT_GT(c1.of(io::StoreOp::kGet) + c1.of(io::StoreOp::kGetRange), 3u) << c1.ToString();
  EXPECT_EQ(c1.of(io::StoreOp::kPutIfAbsent), 3u) << c1.ToString();
  auto fc = first.counts();
  EXPECT_EQ(fc.csrs_built, 1u);
  EXPECT_EQ(fc.ordinals_built, 2u);
  EXPECT_EQ(fc.written, 3u);
  EXPECT_EQ(fc.csrs_loaded + fc.ordinals_loaded + fc.rejected, 0u);
  std::vector<std::string> expected_keys = {CsrKey(e1.prefix(), e1.version_id(), p1.version_id(), t1.version_id()),
                                            OrdinalsKey(p1.prefix(), p1.version_id()),
                                            OrdinalsKey(t1.prefix(), t1.version_id())};
  std::sort(expected_keys.begin(), expected_keys.end());
  EXPECT_EQ(DerivedKeys(), expected_keys);

  // Second cold process: one GET of the CSR object; no fragment, index or ordinals reads, no
  // writes.
  auto g2 = Open();
  auto [snap2, e2, p2, t2] = cold_tables(*g2);
  GraphReadCache second;
  counting_->Reset();
  auto loaded = second.CsrFor(e2, p2, t2, snap2.derived());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  io::StoreCounts c2 = counting_->counts();
  EXPECT_EQ(c2.of(io::StoreOp::kGet), 1u) << c2.ToString();
  EXPECT_EQ(c2.total(), 1u) << c2.ToString();
  auto sc = second.counts();
  EXPECT_EQ(sc.csrs_loaded, 1u);
  EXPECT_EQ(sc.csrs_built + sc.ordinals_built + sc.written + sc.rejected, 0u);
  ExpectSameCsr(**built, **loaded);
  auto ord = second.Ordinals(p2, snap2.derived());
  ASSERT_TRUE(ord.ok());
  EXPECT_EQ(second.counts().ordinals_loaded, 1u);
  EXPECT_EQ(counting_->counts().total(), 2u);
  EXPECT_EQ((*ord)->size(), p2.row_count());

  // Queries on a third cold process load everything and answer as the reference does.
  auto g3 = Open();
  auto snap3 = g3->Head();
  ASSERT_TRUE(snap3.ok());
  GraphReadCache third;
  for (const auto& q : kQueries) Run(*snap3, q, &third);
  auto tc = third.counts();
  EXPECT_EQ(tc.csrs_built, 1u);   // Knows: first time
  EXPECT_EQ(tc.csrs_loaded, 1u);  // Tagged
  EXPECT_EQ(tc.rejected, 0u);
}

TEST_F(AdjacencyStoreTest, ReadOnlyHandleWritesNothing) {
  auto ro = Open(/*read_only=*/true);
  auto snap = ro->Head();
  ASSERT_TRUE(snap.ok());
  EXPECT_FALSE(snap->derived().writable);
  GraphReadCache cache;
  counting_->Reset();
  std::vector<std::vector<std::string>> answers;
  for (const auto& q : kQueries) answers.push_back(Run(*snap, q, &cache));
  EXPECT_EQ(counting_->counts().writes(), 0u) << counting_->counts().ToString();
  EXPECT_TRUE(DerivedKeys().empty());
  EXPECT_GT(cache.counts().csrs_built, 0u);
  EXPECT_EQ(cache.counts().written, 0u);

  // A writable handle persists them (so the check above can fail) ...
  auto rw = Open();
  auto wsnap = rw->Head();
  ASSERT_TRUE(wsnap.ok());
  EXPECT_TRUE(wsnap->derived().writable);
  EXPECT_FALSE(wsnap->Rebind(counting_.get()).derived().writable);  // a writer's staged snapshot
  GraphReadCache writer;
  for (const auto& q : kQueries) Run(*wsnap, q, &writer);
  EXPECT_EQ(DerivedKeys().size(), 4u);  // P, T ordinals; Knows, Tagged CSRs
  EXPECT_EQ(writer.counts().written, 4u);

  // ... which a read-only handle then loads, still writing nothing.
  auto ro2 = Open(/*read_only=*/true);
  auto snap2 = ro2->Head();
  GraphReadCache reader;
  counting_->Reset();
  for (size_t i = 0; i < kQueries.size(); ++i) {
    EXPECT_EQ(Run(*snap2, kQueries[i], &reader), answers[i]);
  }
  EXPECT_EQ(counting_->counts().writes(), 0u);
  EXPECT_EQ(reader.counts().csrs_loaded, 2u);
  EXPECT_EQ(reader.counts().csrs_built + reader.counts().ordinals_built, 0u);
}

TEST_F(AdjacencyStoreTest, DamagedPersistedObjectsAreRebuilt) {
  std::vector<std::vector<std::string>> answers;
  {
    auto g = Open();
    auto snap = g->Head();
    GraphReadCache cache;
    for (const auto& q : kQueries) answers.push_back(Run(*snap, q, &cache));
  }
  const std::vector<std::string> keys = DerivedKeys();
  ASSERT_EQ(keys.size(), 4u);
  // Damage every object a different way: flipped bytes, truncation, a newer version, garbage.
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string b = *mem_->Get(keys[i]);
    switch (i % 4) {
      case 0:
        b[b.size() / 2] ^= 0x10;
        b[b.size() / 3] ^= 0x01;
        break;
      case 1: b.resize(20); break;
      case 2:
        SetU32(&b, 8, 7);
        Reseal(&b);
        break;
      default: b = std::string(b.size(), '\xff'); break;
    }
    ASSERT_TRUE(mem_->Put(keys[i], b).ok());
  }
  // Round 0 rejects all four and rebuilds them; the three corrupt ones are replaced (a writable
  // handle), the newer-version one is left for the newer build. Round 1 loads the three repaired
  // objects and again ignores (and rebuilds in memory) the newer one.
  for (int round = 0; round < 2; ++round) {
    auto g = Open();
    auto snap = g->Head();
    GraphReadCache cache;
    for (size_t i = 0; i < kQueries.size(); ++i) {
      EXPECT_EQ(Run(*snap, kQueries[i], &cache), answers[i]) << kQueries[i];
    }
    auto c = cache.counts();
    EXPECT_EQ(c.rejected, round == 0 ? 4u : 1u) << round;
    EXPECT_EQ(c.csrs_loaded + c.ordinals_loaded, round == 0 ? 0u : 3u) << round;
    EXPECT_EQ(c.csrs_built, round == 0 ? 2u : 1u) << round;
    EXPECT_EQ(c.ordinals_built, round == 0 ? 2u : 0u) << round;
    EXPECT_EQ(c.written, round == 0 ? 4u : 1u) << round;  // the newer one: already there, not replaced
  }
  EXPECT_EQ(DerivedKeys(), keys);
}

}  // namespace
}  // namespace omnigraph::engine
