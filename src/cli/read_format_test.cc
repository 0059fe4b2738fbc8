#include "cli/read_format.h"

#include <gtest/gtest.h>

namespace omnigraph::cli {
namespace {

QueryRows Sample() {
  QueryRows r;
  r.query_name = "get_person";
  r.columns = {"p.name", "p.age"};
  r.rows.push_back({Value::String("Alice"), Value::I32(30)});
  r.rows.push_back({Value::String("Bob"), Value::Null()});
  r.commit_id = "C1";
  return r;
}

std::string Render(const QueryRows& r, std::string_view format, ReadRenderOptions o = {}) {
  return RenderRead(r, ReadTargetText{"main", ""}, format, o);
}

TEST(ReadFormat, JsonKeepsKeyOrderAndTheRustShape) {
  QueryRows r = Sample();
  r.columns = {"z", "a"};  // projection order, not sorted
  EXPECT_EQ(Render(r, "json"), R"({
  "query_name": "get_person",
  "target": {
    "branch": "main",
    "snapshot": null
  },
  "row_count": 2,
  "columns": [
    "z",
    "a"
  ],
  "rows": [
    {
      "z": "Alice",
      "a": 30
    },
    {
      "z": "Bob",
      "a": null
    }
  ],
  "graph_commit_id": "C1"
}
)");
  EXPECT_EQ(
      RenderRead(r, ReadTargetText{"main", "main@3@1"}, "jsonl", {}),
      "{\"kind\":\"metadata\",\"query_name\":\"get_person\",\"target\":{\"branch\":null,\"snapshot\":\"main@3@1\"},"
      "\"row_count\":2}\n{\"z\":\"Alice\",\"a\":30}\n{\"z\":\"Bob\",\"a\":null}\n");
}

TEST(ReadFormat, CsvKvAndTable) {
  EXPECT_EQ(Render(Sample(), "csv"), "p.name,p.age\nAlice,30\nBob,null\n");
  EXPECT_EQ(
      Render(Sample(), "kv"),
      "2 rows from branch main via get_person\nrow 1\np.name: Alice\np.age: 30\n\nrow 2\np.name: Bob\np.age: null\n");
  EXPECT_EQ(Render(Sample(), "table"),
            "2 rows from branch main via get_person\n"
            "p.name | p.age\n"
            "-------+------\n"
            "Alice  | 30   \n"
            "Bob    | null \n");
  QueryRows empty = Sample();
  empty.rows.clear();
  EXPECT_EQ(Render(empty, "kv"), "0 rows from branch main via get_person\n(no rows)\n");
  EXPECT_EQ(RenderRead(empty, ReadTargetText{"main", "s@1@1"}, "table", {}),
            "0 rows from snapshot s@1@1 via get_person\np.name | p.age\n-------+------\n");
}

TEST(ReadFormat, WideCellsAreCutOrWrappedOnCodePoints) {
  QueryRows r;
  r.query_name = "q";
  r.columns = {"t"};
  r.rows.push_back({Value::String("ééééééééééé")});  // 11 code points, 22 bytes
  r.rows.push_back({Value::String("a\nb")});
  ReadRenderOptions o;
  o.max_column_width = 8;
  EXPECT_EQ(Render(r, "table", o), "2 rows from branch main via q\nt       \n--------\nééééééé…\na\\nb    \n");
  o.cell_layout = CellLayout::kWrap;  // a wrapped cell takes as many lines as it needs
  EXPECT_EQ(Render(r, "table", o),
            "2 rows from branch main via q\nt       \n--------\néééééééé\nééé     \na\\nb    \n");
  EXPECT_EQ(Render(r, "csv"), "t\nééééééééééé\n\"a\nb\"\n");
}

}  // namespace
}  // namespace omnigraph::cli
