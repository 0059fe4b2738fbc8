// Streamed bulk loads: the input read in chunks (tiny ones here, so that reads end mid-record and
// records outgrow a chunk) gives the same graph and the same error line numbers as one read; long
// records, the per-record and memory ceilings, CRLF, a last line without newline, files and pipes.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/json.h"
#include "engine/load/exporter.h"
#include "engine/load/loader.h"
#include "io/memory_store.h"

namespace omnigraph::engine {
namespace {

constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32?, tags: [String]?, photo: Blob?, vec: Vector(2)? }
node Note { text: String }
edge Knows: Person -> Person { since: I64? }
)";

// `people` persons, each knowing the next, and a note each; every id explicit (so two loads of the
// same text give the same graph), CRLF on odd lines, blank lines, no newline at the end.
std::string Data(int people) {
  std::string out;
  for (int i = 0; i < people; ++i) {
    const std::string eol = i % 2 ? "\r\n" : "\n";
    out += R"({"type":"Person","data":{"name":"p)" + std::to_string(i) + R"(","age":)" + std::to_string(i % 90) +
           R"(,"tags":["a","b)" + std::to_string(i) + R"("],"photo":"base64:AAEC","vec":[1,)" + std::to_string(i) +
           "]}}" + eol;
    out += R"({"type":"Note","data":{"id":"n)" + std::to_string(i) + R"(","text":"note )" + std::to_string(i) + "\"}}" +
           eol;
    if (i % 10 == 0) out += "   \n";
    if (i > 0) {
      out += R"({"edge":"Knows","from":"p)" + std::to_string(i - 1) + R"(","to":"p)" + std::to_string(i) +
             R"(","data":{"id":"k)" + std::to_string(i) + R"(","since":)" + std::to_string(1900 + i) + "}}" + eol;
    }
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

class LoaderStreamTest : public ::testing::Test {
 protected:
  std::unique_ptr<Graph> NewGraph() {
    auto g = Graph::Init(std::make_shared<io::MemoryStore>(), kSchema);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return std::move(g).value();
  }
  static std::vector<std::string> Export(Graph& g) {
    std::vector<std::string> lines;
    Status s = ExportNdjson(*g.Head(), {}, [&](std::string_view l) {
      lines.emplace_back(l);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return lines;
  }
  static LoadOptions Chunked(size_t chunk_bytes) {
    LoadOptions o;
    o.chunk_bytes = chunk_bytes;
    return o;
  }
  // The line numbers listed in a rejected load's details.
  static std::vector<uint64_t> ErrorLines(const Status& s) {
    std::vector<uint64_t> lines;
    auto details = ParseJson(s.details(), "details");
    EXPECT_TRUE(details.ok()) << s.ToString();
    if (!details.ok()) return lines;
    for (const auto& e : (*details)["errors"]) lines.push_back(e["line"].get<uint64_t>());
    return lines;
  }
};

TEST_F(LoaderStreamTest, ChunkedLoadsGiveTheSameGraphAsOneRead) {
  const std::string data = Data(300);
  auto whole = NewGraph();
  auto r = LoadNdjson(*whole, data, LoadOptions{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->records, 899u);
  const std::vector<std::string> expected = Export(*whole);
  ASSERT_EQ(expected.size(), 899u);
  // 1 byte: every record outgrows the chunk; 37: reads end mid-record; 4096: many lines a chunk.
  for (size_t chunk : {size_t{1}, size_t{37}, size_t{100}, size_t{4096}}) {
    auto g = NewGraph();
    auto loaded = LoadNdjson(*g, data, Chunked(chunk));
    ASSERT_TRUE(loaded.ok()) << "chunk " << chunk << ": " << loaded.status().ToString();
    EXPECT_EQ(loaded->records, 899u);
    EXPECT_EQ(loaded->types.at("Knows").loaded, 299u);
    EXPECT_EQ(Export(*g), expected) << "chunk " << chunk;
  }
}

TEST_F(LoaderStreamTest, ErrorLinesAreRightAcrossChunks) {
  std::string data = Data(50);  // lines: Person, Note, (blank every 10th), Knows...
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= data.size();) {
    size_t end = data.find('\n', pos);
    if (end == std::string::npos) end = data.size();
    lines.push_back(data.substr(pos, end - pos));
    pos = end + 1;
  }
  // Break lines 7, 64 and the last one (CRLF lines keep their "\r").
  for (size_t n : {size_t{7}, size_t{64}, lines.size()}) lines[n - 1] = R"({"type":"Robot"})";
  lines[99] = R"({"type":"Person","data":{"name":"bad","age":"x"}})";  // line 100
  std::string broken;
  for (size_t i = 0; i < lines.size(); ++i) broken += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  const std::vector<uint64_t> want{7, 64, 100, lines.size()};
  for (size_t chunk : {size_t{1}, size_t{50}, size_t{333}, size_t{32} << 20}) {
    auto g = NewGraph();
    auto r = LoadNdjson(*g, broken, Chunked(chunk));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kLoadUnknownType);
    EXPECT_EQ(ErrorLines(r.status()), want) << "chunk " << chunk << ": " << r.status().ToString();
    EXPECT_EQ(g->Head()->seq(), 1u);  // nothing written
  }
  // Bounded: the first two, and "more".
  LoadOptions o = Chunked(50);
  o.max_errors = 2;
  auto g = NewGraph();
  auto r = LoadNdjson(*g, broken, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(ErrorLines(r.status()), (std::vector<uint64_t>{7, 64}));
  EXPECT_TRUE((*ParseJson(r.status().details(), "d"))["truncated"].get<bool>());
  // Cross-record errors (found after parsing) carry the same numbers.
  std::string dup = Data(40) + "\n" + R"({"type":"Note","data":{"id":"n3","text":"again"}})";
  auto g2 = NewGraph();
  auto d = LoadNdjson(*g2, dup, Chunked(64));
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), ErrorCode::kLoadDuplicateId);
  EXPECT_EQ(ErrorLines(d.status()), (std::vector<uint64_t>{std::count(dup.begin(), dup.end(), '\n') + 1ul}));
}

TEST_F(LoaderStreamTest, LongRecordsLoadUpToThePerRecordLimit) {
  const std::string text(3 << 20, 'x');  // 3 MiB in one record
  const std::string data = R"({"type":"Note","data":{"id":"a","text":"short"}})"
                           "\n"
                           R"({"type":"Note","data":{"id":"b","text":")" +
                           text + "\"}}\r\n" + R"({"type":"Note","data":{"id":"c","text":"short"}})";
  auto g = NewGraph();
  auto r = LoadNdjson(*g, data, Chunked(4096));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->records, 3u);
  bool found = false;
  for (const auto& l : Export(*g)) found |= l.find(text) != std::string::npos;
  EXPECT_TRUE(found);
  // Past the limit: resource_limit naming line 2, whether the line outgrows the read buffer (small
  // chunks) or sits inside one chunk (large chunks).
  for (size_t chunk : {size_t{4096}, size_t{8} << 20}) {
    LoadOptions o = Chunked(chunk);
    o.max_record_bytes = 1 << 20;
    auto g2 = NewGraph();
    auto rejected = LoadNdjson(*g2, data, o);
    ASSERT_FALSE(rejected.ok());
    EXPECT_EQ(rejected.status().code(), ErrorCode::kResourceExhausted) << rejected.status().ToString();
    EXPECT_EQ(ErrorLines(rejected.status()), (std::vector<uint64_t>{2})) << rejected.status().ToString();
    EXPECT_NE(rejected.status().message().find("per-record limit of 1048576 bytes"), std::string::npos)
        << rejected.status().message();
    EXPECT_EQ(g2->Head()->seq(), 1u);
  }
}

TEST_F(LoaderStreamTest, MemoryCeilingIsAResourceLimitNamingTheLimit) {
  const std::string data = Data(2000);
  LoadOptions o = Chunked(16 << 10);
  o.max_memory_bytes = 64 << 10;
  auto g = NewGraph();
  auto r = LoadNdjson(*g, data, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kResourceExhausted);
  EXPECT_NE(r.status().message().find("memory limit of 65536 bytes"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("--max-memory"), std::string::npos) << r.status().message();
  EXPECT_EQ(g->Head()->seq(), 1u);
  o.max_memory_bytes = uint64_t{1} << 30;
  EXPECT_TRUE(LoadNdjson(*g, data, o).ok());
}

// Between the parsed size and the estimated staging peak, the ceiling stops the load before
// staging (nothing written); raising it lets the same load through.
TEST_F(LoaderStreamTest, MemoryCeilingCoversStaging) {
  const std::string data = Data(2000);
  auto g = NewGraph();
  bool saw_parse_limit = false, saw_staging_limit = false;
  for (uint64_t limit = 8 << 10;; limit += limit / 4) {
    ASSERT_LT(limit, uint64_t{1} << 30);
    LoadOptions o = Chunked(16 << 10);
    o.max_memory_bytes = limit;
    auto r = LoadNdjson(*g, data, o);
    if (r.ok()) break;
    ASSERT_EQ(r.status().code(), ErrorCode::kResourceExhausted) << r.status().ToString();
    EXPECT_EQ(g->Head()->seq(), 1u);
    const bool staging = r.status().message().find("for building the tables' indexes") != std::string::npos;
    if (staging) {
      EXPECT_NE(r.status().message().find("--max-memory"), std::string::npos) << r.status().message();
    } else {
      EXPECT_FALSE(saw_staging_limit) << "a parse limit above a staging limit: " << limit;
    }
    (staging ? saw_staging_limit : saw_parse_limit) = true;
  }
  EXPECT_TRUE(saw_parse_limit);
  EXPECT_TRUE(saw_staging_limit);
  EXPECT_EQ(g->Head()->seq(), 2u);
}

TEST_F(LoaderStreamTest, FilesAndPipesAreStreamed) {
  const std::string data = Data(200);
  auto whole = NewGraph();
  ASSERT_TRUE(LoadNdjson(*whole, data, LoadOptions{}).ok());
  const auto path = std::filesystem::temp_directory_path() / ("og_stream_" + std::to_string(::getpid()) + ".ndjson");
  std::ofstream(path, std::ios::binary) << data;
  {
    auto source = OpenLoadFile(path.string());
    ASSERT_TRUE(source.ok()) << source.status().ToString();
    EXPECT_EQ((*source)->size(), data.size());
    auto g = NewGraph();
    ASSERT_TRUE(LoadNdjson(*g, **source, Chunked(1000)).ok());
    EXPECT_EQ(Export(*g), Export(*whole));
    EXPECT_TRUE((*source)->Rewind().ok());
  }
  std::filesystem::remove(path);
  EXPECT_EQ(OpenLoadFile(path.string()).status().code(), ErrorCode::kNotFound);
  // A pipe: streamed as it is written; it cannot be read twice.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    for (size_t pos = 0; pos < data.size();) {
      ssize_t n = ::write(fds[1], data.data() + pos, std::min<size_t>(777, data.size() - pos));
      if (n <= 0) break;
      pos += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  auto source = OpenLoadFile("/proc/self/fd/" + std::to_string(fds[0]));
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  EXPECT_FALSE((*source)->size().has_value());
  auto g = NewGraph();
  auto r = LoadNdjson(*g, **source, Chunked(500));
  writer.join();
  ::close(fds[0]);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Export(*g), Export(*whole));
  EXPECT_EQ((*source)->Rewind().code(), ErrorCode::kPreconditionFailed);
}

}  // namespace
}  // namespace omnigraph::engine
