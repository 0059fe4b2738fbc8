// CSR adjacency and table ordinals (adjacency.h): both directions, parallel edges, self loops,
// empty tables, heterogeneous endpoints, and the version-keyed cache.
#include "engine/derived/read_cache.h"

#include <gtest/gtest.h>

#include "engine/load/loader.h"
#include "engine/mutate/mutation.h"
#include "io/memory_store.h"
#include "table/table_writer.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node P { name: String @key, age: I64? }
node T { slug: String @key, title: String? }
edge Knows: P -> P { w: I64? }
edge In: P -> T
)";

class EngineCsrTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = std::move(g).value();
  }
  void Load(std::string_view data) {
    LoadOptions o;
    auto r = LoadNdjson(*graph_, data, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::shared_ptr<const Csr> Build(const std::string& edge, const std::string& from, const std::string& to) {
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    auto e = snap->Table(edge);
    auto f = snap->Table(from);
    auto t = snap->Table(to);
    EXPECT_TRUE(e.ok() && f.ok() && t.ok());
    auto c = cache_.CsrFor(*e, *f, *t);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    auto fo = cache_.Ordinals(*f);
    auto to_ = cache_.Ordinals(*t);
    EXPECT_TRUE(fo.ok() && to_.ok());
    from_ = *fo;
    to_ord_ = *to_;
    return c.ok() ? *c : nullptr;
  }
  // The ordinals the cache served (maybe derived from an earlier version's) equal a fresh build's.
  static void ExpectSameOrdinals(const TableOrdinals& served, const TableOrdinals& fresh) {
    ASSERT_EQ(served.size(), fresh.size());
    for (uint32_t i = 0; i < served.size(); ++i) {
      ASSERT_EQ(served.id(i), fresh.id(i)) << i;
      ASSERT_EQ(served.address(i), fresh.address(i)) << i;
      ASSERT_EQ(served.Find(served.id(i)), fresh.Find(served.id(i))) << i;
      ASSERT_EQ(served.FromAddress(served.address(i)), std::optional<uint32_t>(i)) << i;
    }
    EXPECT_EQ(served.Find("no such id"), std::nullopt);
  }
  // The CSR the cache derives for the head equals one built from scratch, list by list.
  void ExpectSameAsFresh(const Csr& extended, const std::string& edge = "Knows", const std::string& from = "P",
                         const std::string& to = "P") {
    auto snap = graph_->Head();
    ASSERT_TRUE(snap.ok());
    GraphReadCache fresh_cache;
    auto fresh = fresh_cache.CsrFor(*snap->Table(edge), *snap->Table(from), *snap->Table(to));
    ASSERT_TRUE(fresh.ok());
    const Csr& f = **fresh;
    auto fresh_from = fresh_cache.Ordinals(*snap->Table(from));
    auto fresh_to = fresh_cache.Ordinals(*snap->Table(to));
    ASSERT_TRUE(fresh_from.ok() && fresh_to.ok() && from_ != nullptr && to_ord_ != nullptr);
    ExpectSameOrdinals(*from_, **fresh_from);
    ExpectSameOrdinals(*to_ord_, **fresh_to);
    ExpectSameCsr(extended, f);
  }
  static void ExpectSameCsr(const Csr& extended, const Csr& f) {
    ASSERT_EQ(extended.num_src(), f.num_src());
    ASSERT_EQ(extended.num_dst(), f.num_dst());
    ASSERT_EQ(extended.num_edges(), f.num_edges());
    ASSERT_EQ(extended.edge_rows(), f.edge_rows());
    auto eq = [](std::span<const uint32_t> x, std::span<const uint32_t> y) {
      return std::vector<uint32_t>(x.begin(), x.end()) == std::vector<uint32_t>(y.begin(), y.end());
    };
    for (uint32_t n = 0; n < f.num_src(); ++n) {
      EXPECT_TRUE(eq(extended.OutNodes(n), f.OutNodes(n))) << n;
      EXPECT_TRUE(eq(extended.OutEdges(n), f.OutEdges(n))) << n;
      EXPECT_EQ(extended.HasSelfLoop(n), f.HasSelfLoop(n)) << n;
    }
    for (uint32_t n = 0; n < f.num_dst(); ++n) {
      EXPECT_TRUE(eq(extended.InNodes(n), f.InNodes(n))) << n;
      EXPECT_TRUE(eq(extended.InEdges(n), f.InEdges(n))) << n;
    }
  }
  int RandomWrites(int base_nodes);
  // Loads people p0.., topics t0.. and `edges` In edges p(i % people) -> t(i * step % topics), and
  // builds the In CSR.
  void LoadPeopleAndTopics(int people, int topics, int edges, int step) {
    std::string data;
    for (int i = 0; i < people; ++i) data += R"({"type":"P","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
    for (int i = 0; i < topics; ++i) data += R"({"type":"T","data":{"slug":"t)" + std::to_string(i) + "\"}}\n";
    for (int i = 0; i < edges; ++i) {
      data += R"({"edge":"In","from":"p)" + std::to_string(i % people) + R"(","to":"t)" +
              std::to_string((i * step) % topics) + "\"}\n";
    }
    Load(data);
    ASSERT_NE(Build("In", "P", "T"), nullptr);
  }
  // Runs each mutation, then expects the CSR the cache derives to equal a fresh build.
  void EachFollowsAsAFreshBuildWould(const std::vector<std::string>& writes, const std::string& edge,
                                     const std::string& from, const std::string& to) {
    for (const std::string& q : writes) {
      SCOPED_TRACE(q);
      auto r = RunMutation(*graph_, q, "");
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      auto c = Build(edge, from, to);
      ASSERT_NE(c, nullptr);
      ExpectSameAsFresh(*c, edge, from, to);
    }
  }
  uint32_t F(std::string_view id) { return *from_->Find(id); }
  uint32_t To(std::string_view id) { return *to_ord_->Find(id); }
  std::vector<std::string> Ids(std::span<const uint32_t> nodes, const TableOrdinals& o) {
    std::vector<std::string> out;
    for (uint32_t n : nodes) out.emplace_back(o.id(n));
    return out;
  }

  std::unique_ptr<Graph> graph_;
  GraphReadCache cache_;
  std::shared_ptr<const TableOrdinals> from_, to_ord_;
};

TEST_F(EngineCsrTest, EmptyTables) {
  auto c = Build("Knows", "P", "P");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->num_src(), 0u);
  EXPECT_EQ(c->num_dst(), 0u);
  EXPECT_EQ(c->num_edges(), 0u);
  EXPECT_EQ(from_->size(), 0u);
  EXPECT_FALSE(from_->Find("x").has_value());
}

TEST_F(EngineCsrTest, DirectionsParallelEdgesAndSelfLoops) {
  Load(R"({"type":"P","data":{"name":"a"}}
{"type":"P","data":{"name":"b"}}
{"type":"P","data":{"name":"c"}}
{"type":"P","data":{"name":"lonely"}}
{"edge":"Knows","from":"a","to":"b","data":{"w":1}}
{"edge":"Knows","from":"a","to":"b","data":{"w":2}}
{"edge":"Knows","from":"a","to":"c"}
{"edge":"Knows","from":"c","to":"c"}
{"edge":"Knows","from":"b","to":"a"}
)");
  auto c = Build("Knows", "P", "P");
  ASSERT_NE(c, nullptr);
  EXPECT_TRUE(c->same_table());
  EXPECT_EQ(c->num_src(), 4u);
  EXPECT_EQ(c->num_edges(), 5u);
  EXPECT_EQ(Ids(c->OutNodes(F("a")), *to_ord_), (std::vector<std::string>{"b", "b", "c"}));
  EXPECT_EQ(Ids(c->InNodes(To("b")), *from_), (std::vector<std::string>{"a", "a"}));
  EXPECT_EQ(Ids(c->InNodes(To("c")), *from_), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(Ids(c->InNodes(To("a")), *from_), (std::vector<std::string>{"b"}));
  EXPECT_TRUE(c->OutNodes(F("lonely")).empty());
  EXPECT_TRUE(c->InNodes(To("lonely")).empty());
  // Parallel edges keep distinct edge ordinals (rows of the edge table with their properties).
  auto edges = c->OutEdges(F("a"));
  ASSERT_EQ(edges.size(), 3u);
  EXPECT_NE(edges[0], edges[1]);
  auto snap = graph_->Head();
  auto w = cache_.ColumnFor(*snap->Table("Knows"), "w");
  ASSERT_TRUE(w.ok());
  std::vector<int64_t> ws{(*w)->GetValue(edges[0]).int_value(), (*w)->GetValue(edges[1]).int_value()};
  std::sort(ws.begin(), ws.end());
  EXPECT_EQ(ws, (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(c->HasSelfLoop(F("c")));
  EXPECT_FALSE(c->HasSelfLoop(F("a")));
  EXPECT_TRUE(c->HasEdge(F("a"), To("c")));
  EXPECT_FALSE(c->HasEdge(F("c"), To("a")));
  // Unknown columns are absent, not errors.
  auto none = cache_.ColumnFor(*snap->Table("Knows"), "nope");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
}

TEST_F(EngineCsrTest, HeterogeneousEndpointsAndCacheByVersion) {
  Load(R"({"type":"P","data":{"name":"a"}}
{"type":"T","data":{"slug":"t1"}}
{"type":"T","data":{"slug":"t2"}}
{"edge":"In","from":"a","to":"t2"}
{"edge":"In","from":"a","to":"t1"}
)");
  auto c = Build("In", "P", "T");
  ASSERT_NE(c, nullptr);
  EXPECT_FALSE(c->same_table());
  EXPECT_EQ(c->num_src(), 1u);
  EXPECT_EQ(c->num_dst(), 2u);
  auto out = Ids(c->OutNodes(F("a")), *to_ord_);
  std::sort(out.begin(), out.end());
  EXPECT_EQ(out, (std::vector<std::string>{"t1", "t2"}));
  EXPECT_FALSE(c->HasSelfLoop(0));
  // Same versions: the cached object; a new version of the edge table: a new CSR.
  auto again = Build("In", "P", "T");
  EXPECT_EQ(again.get(), c.get());
  Load(R"({"type":"T","data":{"slug":"t3"}}
{"edge":"In","from":"a","to":"t3"})");
  auto next = Build("In", "P", "T");
  ASSERT_NE(next, nullptr);
  EXPECT_NE(next.get(), c.get());
  EXPECT_EQ(next->OutNodes(F("a")).size(), 3u);
  EXPECT_EQ(c->OutNodes(0).size(), 2u);  // the old one is unchanged
}

TEST(EngineCsrCache, BoundedByBytes) {
  auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
  ASSERT_TRUE(g.ok());
  auto snap = (*g)->Head();
  ASSERT_TRUE(snap.ok());
  GraphReadCache roomy(uint64_t{1} << 20);
  ASSERT_TRUE(roomy.Ordinals(*snap->Table("P")).ok());
  ASSERT_TRUE(roomy.Ordinals(*snap->Table("T")).ok());
  ASSERT_TRUE(roomy.ColumnFor(*snap->Table("T"), "slug").ok());
  EXPECT_EQ(roomy.size(), 3u);
  EXPECT_GT(roomy.stats().used, 0u);
  // A budget below one entry keeps nothing, and queries still get their structures.
  GraphReadCache none(0);
  auto o = none.Ordinals(*snap->Table("P"));
  ASSERT_TRUE(o.ok());
  EXPECT_NE(*o, nullptr);
  EXPECT_EQ(none.size(), 0u);
  // Room for about one entry: the least recently used goes.
  GraphReadCache one(roomy.stats().used / 2);
  ASSERT_TRUE(one.Ordinals(*snap->Table("P")).ok());
  ASSERT_TRUE(one.Ordinals(*snap->Table("T")).ok());
  EXPECT_LE(one.stats().used, one.stats().budget);
  EXPECT_LE(one.size(), 2u);
}

// A write's next CSR is derived from the previous version's (Csr::Extend): appended edges,
// deleted edges (a self-loop among them), inserted ones, appended fragments deleted whole. Each result equals a build
// from scratch, list by list.
TEST_F(EngineCsrTest, ExtendsTheLastVersionsCsrAfterSmallWrites) {
  Load(R"({"type":"P","data":{"name":"a"}}
{"type":"P","data":{"name":"b"}}
{"type":"P","data":{"name":"c"}}
{"type":"P","data":{"name":"d"}}
{"edge":"Knows","from":"a","to":"b","data":{"w":1}}
{"edge":"Knows","from":"a","to":"c","data":{"w":2}}
{"edge":"Knows","from":"b","to":"b","data":{"w":3}}
{"edge":"Knows","from":"c","to":"a","data":{"w":4}}
)");
  ASSERT_NE(Build("Knows", "P", "P"), nullptr);
  auto same_as_fresh = [&](const char* step) {
    SCOPED_TRACE(step);
    auto extended = Build("Knows", "P", "P");
    ASSERT_NE(extended, nullptr);
    ExpectSameAsFresh(*extended);
  };
  auto step = [&](const char* q, const char* what) {  // a mutation, then the derived CSR checked
    auto r = RunMutation(*graph_, q, "");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    same_as_fresh(what);
  };
  Load(R"({"edge":"Knows","from":"d","to":"a","data":{"w":5}}
{"edge":"Knows","from":"a","to":"b","data":{"w":6}}
{"edge":"Knows","from":"a","to":"a","data":{"w":7}}
)");
  same_as_fresh("append");
  EXPECT_EQ(cache_.counts().csrs_extended, 1u);
  EXPECT_TRUE(Build("Knows", "P", "P")->overlaid());  // the loaded arrays untouched
  step("query m() { delete Knows where w = 3 }", "delete the self-loop");
  step("query m() { delete Knows where w = 2 }", "delete");
  step("query m() { insert Knows { from: \"b\", to: \"d\", w: 10 } }", "insert");
  step("query m() { delete Knows where w >= 5 }", "delete whole appended fragments");
  EXPECT_EQ(cache_.counts().csrs_extended, 5u);
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  // A new node keeps the old ordinals (appended rows): the lists stay, the node has none.
  Load(R"({"type":"P","data":{"name":"e"}}
)");
  same_as_fresh("new node");
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().csrs_extended, 6u);
  // A deleted node renumbers the ordinals after it (and its edges go): the lists carried over.
  step("query m() { delete P where name = \"b\" }", "deleted node");
  // An updated node is written again at the end: its lists move with it.
  step("query m() { update P set { age: 3 } where name = \"a\" }", "updated node");
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().csrs_extended, 8u);
  EXPECT_EQ(cache_.counts().ordinals_built, 1u);
}

// Node deletes and updates on both sides of an edge between two tables, and on a node table the
// edge does not touch, each followed by the derived CSR and ordinals compared with fresh builds.
TEST_F(EngineCsrTest, FollowsNodeDeletesAndUpdatesOnBothEndpointTables) {
  LoadPeopleAndTopics(12, 6, 30, 5);
  const std::vector<std::string> steps = {
      "query m() { update T set { title: \"x\" } where slug = \"t0\" }",
      "query m() { delete T where slug = \"t3\" }",
      "query m() { update P set { age: 1 } where name = \"p0\" }",
      "query m() { update P set { age: 2 } where name = \"p5\" update T set { title: \"y\" } where slug = \"t1\" }",
      "query m() { delete P where name = \"p7\" }",
      "query m() { insert T { slug: \"t9\" } insert In { from: \"p0\", to: \"t9\" } }",
      "query m() { delete P where name = \"p0\" delete T where slug = \"t5\" }",
      "query m() { update P set { age: 3 } where name = \"p11\" insert In { from: \"p11\", to: \"t9\" } }",
  };
  EachFollowsAsAFreshBuildWould(steps, "In", "P", "T");
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().ordinals_built, 2u);  // P and T, once each
}

// Rows that share an id (the table layer allows it; Find gives the first): a duplicate appended,
// then the first copy deleted, so that the edges of the id move to the second. Each derived CSR
// and ordinals equal fresh builds.
TEST_F(EngineCsrTest, NodeRowsSharingAnIdFollowAsAFreshBuildWould) {
  Load(R"({"type":"P","data":{"name":"a"}}
{"type":"P","data":{"name":"b"}}
{"type":"P","data":{"name":"c"}}
{"edge":"Knows","from":"a","to":"b","data":{"w":1}}
{"edge":"Knows","from":"b","to":"a","data":{"w":2}}
{"edge":"Knows","from":"c","to":"a","data":{"w":3}}
{"edge":"Knows","from":"a","to":"a","data":{"w":4}}
)");
  auto snap = graph_->Head();
  ASSERT_TRUE(snap.ok());
  auto knows = snap->Table("Knows");
  auto v0 = snap->Table("P");
  ASSERT_TRUE(knows.ok() && v0.ok());
  ASSERT_TRUE(cache_.CsrFor(*knows, *v0, *v0).ok());
  auto o0 = cache_.Ordinals(*v0);
  ASSERT_TRUE(o0.ok());
  const uint64_t first_a = (*o0)->address(*(*o0)->Find("a"));
  std::vector<std::string> columns;
  for (const auto& f : v0->schema().fields) columns.push_back(f.name);
  const uint64_t at[1] = {first_a};
  auto row_a = v0->Take(at, columns);
  ASSERT_TRUE(row_a.ok()) << row_a.status().ToString();
  auto same_as_fresh = [&](const table::TableVersion& p) {
    auto derived = cache_.CsrFor(*knows, p, p);
    auto ord = cache_.Ordinals(p);
    ASSERT_TRUE(derived.ok() && ord.ok());
    GraphReadCache fresh_cache;
    auto fresh = fresh_cache.CsrFor(*knows, p, p);
    auto fresh_ord = fresh_cache.Ordinals(p);
    ASSERT_TRUE(fresh.ok() && fresh_ord.ok());
    ExpectSameOrdinals(**ord, **fresh_ord);
    ExpectSameCsr(**derived, **fresh);
  };
  auto v1 = table::AppendRows(*v0, *row_a);  // "a" twice: the first row has the edges
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  same_as_fresh(*v1);
  auto v2 = table::DeleteRows(*v1, at);  // the first "a" gone: the second takes its edges
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  same_as_fresh(*v2);
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().csrs_extended, 2u);
  auto o2 = cache_.Ordinals(*v2);
  ASSERT_TRUE(o2.ok());
  EXPECT_EQ((*o2)->Find("a"), std::optional<uint32_t>(2));
}

// Many small writes in a row: appends (an overlay beside the flat arrays), deletes of edges the
// overlay added (still an overlay), and deletes of loaded edges (renumbering: flat again). Every
// step equals a fresh build, and the overlay never holds more lists than the writes touched.
// Node extensions of node extensions share the one CSR that holds the lists: an intermediate one
// is not kept alive by the next (no chain of offsets arrays, each charged again).
// Node inserts: the ordinals of the new version are the old ones plus a tail of the new rows,
// over the old arrays (an overlay) while the tail stays within a sixteenth of them; past that,
// or after a delete, flat ones again. Each equals a fresh build's.
TEST_F(EngineCsrTest, OrdinalsOfNodeInsertsAreATailOverTheOldArrays) {
  std::string data;
  for (int i = 0; i < 100; ++i) data += R"({"type":"P","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  Load(data);
  auto ordinals = [&]() {
    auto snap = graph_->Head();
    EXPECT_TRUE(snap.ok());
    auto served = cache_.Ordinals(*snap->Table("P"));
    EXPECT_TRUE(served.ok());
    GraphReadCache fresh_cache;
    auto fresh = fresh_cache.Ordinals(*snap->Table("P"));
    EXPECT_TRUE(fresh.ok());
    if (!served.ok() || !fresh.ok()) return std::shared_ptr<const TableOrdinals>();
    ExpectSameOrdinals(**served, **fresh);
    return *served;
  };
  auto mutate = [&](const std::string& q) {
    auto r = RunMutation(*graph_, q, "");
    ASSERT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  };
  auto base = ordinals();
  ASSERT_NE(base, nullptr);
  EXPECT_FALSE(base->appended());
  for (const char* name : {"n0", "n1", "n2"}) {
    mutate(std::string("query m() { insert P { name: \"") + name + "\" } }");
    auto o = ordinals();
    ASSERT_NE(o, nullptr);
    EXPECT_TRUE(o->appended()) << name;
  }
  std::string many = "query m() {";
  for (int i = 0; i < 10; ++i) many += " insert P { name: \"m" + std::to_string(i) + "\" }";
  mutate(many + " }");  // a tail of 13 over 100 rows: flat again
  auto flat = ordinals();
  ASSERT_NE(flat, nullptr);
  EXPECT_FALSE(flat->appended());
  mutate("query m() { insert P { name: \"z\" } }");
  auto again = ordinals();
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(again->appended());
  mutate("query m() { delete P where name = \"p3\" }");  // not an append: flattened, then renumbered
  auto after_delete = ordinals();
  ASSERT_NE(after_delete, nullptr);
  EXPECT_FALSE(after_delete->appended());
  EXPECT_EQ(cache_.counts().ordinals_built, 1u);
}

// After node inserts the CSR counts the new nodes past its shared offsets (Csr::ExtendNodes);
// every later kind of write starts from such a CSR: an edge to a new node (an overlay over it), a
// delete of a loaded edge (a merge over its offsets made whole first), a node delete (lists
// renumbered). Each result equals a fresh build.
TEST_F(EngineCsrTest, WritesAfterNodeInsertsFollowAsAFreshBuildWould) {
  std::string data;
  for (int i = 0; i < 40; ++i) data += R"({"type":"P","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  for (int i = 0; i < 120; ++i) {
    data += R"({"edge":"Knows","from":"p)" + std::to_string(i % 40) + R"(","to":"p)" + std::to_string((i * 7) % 40) +
            R"(","data":{"w":)" + std::to_string(i) + "}}\n";
  }
  Load(data);
  ASSERT_NE(Build("Knows", "P", "P"), nullptr);
  const std::vector<std::string> writes = {
      "query m() { insert P { name: \"n1\" } }",
      "query m() { delete Knows where w = 5 }",  // a loaded edge: merged
      "query m() { insert P { name: \"n2\" } }",
      "query m() { insert P { name: \"n3\" } }",
      "query m() { insert Knows { from: \"n3\", to: \"n2\", w: 500 } insert Knows { from: \"p1\", to: \"n3\", w: 501 } "
      "}",
      "query m() { insert P { name: \"n4\" } }",  // over an overlay
      "query m() { delete Knows where w = 7 }",
      "query m() { insert P { name: \"n5\" } }",
      "query m() { delete P where name = \"p2\" }",  // renumbered
      "query m() { insert P { name: \"n6\" } }",
      "query m() { insert Knows { from: \"n6\", to: \"n6\", w: 502 } }",  // a self-loop of a new node
  };
  EachFollowsAsAFreshBuildWould(writes, "Knows", "P", "P");
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().ordinals_built, 1u);
}

// The same between two node tables, where one side grows at a time.
TEST_F(EngineCsrTest, WritesAfterNodeInsertsOnOneSideFollowAsAFreshBuildWould) {
  LoadPeopleAndTopics(40, 20, 60, 3);
  const std::vector<std::string> writes = {
      "query m() { insert T { slug: \"u1\" } }",  // the destination side grows
      "query m() { insert In { from: \"p1\", to: \"u1\" } }",
      "query m() { insert P { name: \"q1\" } }",  // the source side grows
      "query m() { insert P { name: \"q2\" } insert In { from: \"q2\", to: \"t4\" } }",
      "query m() { delete T where slug = \"t3\" }",  // renumbered, its edges gone
      "query m() { insert T { slug: \"u2\" } }",
      "query m() { delete P where name = \"p5\" }",
  };
  EachFollowsAsAFreshBuildWould(writes, "In", "P", "T");
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
}

TEST_F(EngineCsrTest, NodeExtensionsDoNotChain) {
  Load(R"({"type":"P","data":{"name":"a"}}
{"type":"P","data":{"name":"b"}}
{"edge":"Knows","from":"a","to":"b","data":{"w":1}}
)");
  std::shared_ptr<const Csr> base = Build("Knows", "P", "P");
  ASSERT_NE(base, nullptr);
  std::shared_ptr<const Csr> first = Csr::ExtendNodes(base, 3, 3);
  std::weak_ptr<const Csr> first_alive = first;
  std::shared_ptr<const Csr> last = first;
  for (uint32_t n = 4; n < 10; ++n) last = Csr::ExtendNodes(last, n, n);
  first.reset();
  EXPECT_TRUE(first_alive.expired());
  EXPECT_EQ(last->num_src(), 9u);
  EXPECT_EQ(std::vector<uint32_t>(last->OutNodes(0).begin(), last->OutNodes(0).end()), std::vector<uint32_t>{1});
  EXPECT_TRUE(last->OutNodes(8).empty());
  EXPECT_LT(last->memory_bytes(), base->memory_bytes() + 1024);
}

// Edge inserts and deletes, and node inserts (alone or with an edge of the new node in one
// commit), each followed by the cache's derived CSR compared with a fresh build.
// 100 random small writes over `base_nodes` nodes and three times as many edges; returns how
// many of the served node ordinals were tails over shared arrays (TableOrdinals::Append).
int EngineCsrTest::RandomWrites(int base_nodes) {
  const int base_edges = 3 * base_nodes;
  int appended = 0;
  std::string data;
  for (int i = 0; i < base_nodes; ++i) data += R"({"type":"P","data":{"name":"p)" + std::to_string(i) + "\"}}\n";
  for (int i = 0; i < base_edges; ++i) {  // parallel edges and self-loops among them
    data += R"({"edge":"Knows","from":"p)" + std::to_string(i % base_nodes) + R"(","to":"p)" +
            std::to_string((i * 7) % base_nodes) + R"(","data":{"w":)" + std::to_string(i) + "}}\n";
  }
  Load(data);
  EXPECT_NE(Build("Knows", "P", "P"), nullptr);
  uint32_t state = 12345;
  auto next = [&](uint32_t n) {
    state = state * 1103515245u + 12345u;
    return (state >> 8) % n;
  };
  std::vector<int> added;  // w of inserted edges still there
  std::vector<std::string> nodes;
  for (int i = 0; i < base_nodes; ++i) nodes.push_back("p" + std::to_string(i));
  int overlays = 0, flats = 0, node_deletes = 0, node_updates = 0;
  std::vector<std::string> gone;  // deleted nodes: no longer found
  for (int step = 0; step < 100; ++step) {
    SCOPED_TRACE(step);
    const uint32_t op = next(13);
    std::string q;
    auto pick = [&] { return nodes[next(static_cast<uint32_t>(nodes.size()))]; };
    if (op == 11 && nodes.size() > 20) {  // delete a node (its edges go with it)
      const size_t i = next(static_cast<uint32_t>(nodes.size()));
      q = "query m() { delete P where name = \"" + nodes[i] + "\" }";
      gone.push_back(nodes[i]);
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(i));
      ++node_deletes;
    } else if (op == 12) {  // update a node: written again at the end, its edges follow it
      q = "query m() { update P set { age: " + std::to_string(step) + " } where name = \"" + pick() + "\" }";
      ++node_updates;
    } else if (op == 10) {  // a new node (Csr::ExtendNodes), and every other time an edge of it in the same commit
      const std::string n = "q" + std::to_string(step);
      q = "query m() { insert P { name: \"" + n + "\" }";
      nodes.push_back(n);
      if (step % 2 == 0) {
        const int w = 1000 + step;
        q += " insert Knows { from: \"" + n + "\", to: \"" + pick() + "\", w: " + std::to_string(w) + " }";
        added.push_back(w);
      }
      q += " }";
    } else if (op < 5 || added.empty()) {  // insert one or two edges (sometimes a self-loop)
      const int w = 1000 + step;
      const std::string a = pick(), b = op == 0 ? a : pick();
      q = "query m() { insert Knows { from: \"" + a + "\", to: \"" + b + "\", w: " + std::to_string(w) + " } }";
      added.push_back(w);
    } else if (op < 8) {  // delete the newest insert, or an older one
      const size_t i = op == 5 ? added.size() - 1 : next(static_cast<uint32_t>(added.size()));
      q = "query m() { delete Knows where w = " + std::to_string(added[i]) + " }";
      added.erase(added.begin() + static_cast<std::ptrdiff_t>(i));
    } else {  // delete a loaded edge
      q = "query m() { delete Knows where w = " + std::to_string(next(static_cast<uint32_t>(base_edges))) + " }";
    }
    auto r = RunMutation(*graph_, q, "");
    EXPECT_TRUE(r.ok()) << q << ": " << r.status().ToString();
    if (!r.ok()) return appended;
    auto c = Build("Knows", "P", "P");
    EXPECT_NE(c, nullptr);
    if (c == nullptr) return appended;
    (c->overlaid() ? overlays : flats)++;
    appended += from_->appended() ? 1 : 0;
    ExpectSameAsFresh(*c);
    if (HasFatalFailure()) return appended;
    for (const std::string& name : gone) EXPECT_EQ(from_->Find(name), std::nullopt) << name;
  }
  EXPECT_GT(overlays, 20);
  EXPECT_GT(flats, 0);
  EXPECT_GT(node_deletes, 3);
  EXPECT_GT(node_updates, 3);
  // Node inserts, deletes and updates among the writes, none of which rebuilt the CSR or the ordinals.
  EXPECT_EQ(cache_.counts().csrs_built, 1u);
  EXPECT_EQ(cache_.counts().ordinals_built, 1u);
  EXPECT_GT(cache_.counts().ordinals_extended, 3u);
  return appended;
}

TEST_F(EngineCsrTest, OverlaysFollowSmallWritesAsAFreshBuildWould) { RandomWrites(30); }

// The same over 400 nodes: node inserts then leave the ordinals a tail over the old arrays.
TEST_F(EngineCsrTest, OverlaysAndOrdinalTailsFollowSmallWritesAsAFreshBuildWould) { EXPECT_GT(RandomWrites(400), 3); }

}  // namespace
}  // namespace omnigraph::engine
