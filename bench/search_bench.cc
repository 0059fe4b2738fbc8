// Search inside queries, measured (docs/search.md, docs/benchmarks.md "search_bench"): builds a
// corpus of --docs documents from real English text (the `fortunes` Debian package: each
// document a window of 2-6 consecutive lines), with a random --dim vector and one of 100
// categories each, and --authors authors who wrote them (one Wrote edge per document); loads it
// (one commit) and times, warm, through the embedded API:
//   exact_knn     order { nearest($d.embedding, $v) } limit 10           (every document)
//   filtered_knn  the same over $d: Doc { category: "c00" } (1%)
//   fts_bm25      order { bm25($d.body, $q) } limit 10
//   search_count  match { $d: Doc search($d.body, $q) } return { count($d) }
//   hybrid_1hop   $a: Author { name: $a } $a wrote $d, order { rrf(nearest, bm25) } limit 10
// Then `optimize` (which builds the body's text segment and the embedding's HNSW segment), timed;
// the first bm25 query of the optimized version (its index assembled from the segment), timed;
// then warm again:
//   ann_knn, ann_filtered_knn, ann_hybrid_1hop: the kNN queries above over the index (recall@10
//   against exact_knn's answers reported; the 1% filter stays exact)
// and last one appended document and the first bm25 query after it (segment + one analyzed row).
// Each query of a list runs once to warm up (the first bm25 builds the column's index: its time
// is reported as fts_index_ms), then --reps times; medians over all (query, rep) runs.
// With --peers, runs `node bench/peers/search.js` on the same files (LanceDB, SQLite FTS5) and
// prints both side by side with ratios; exact and filtered kNN answers must equal LanceDB's.
//   search_bench [--docs 100000] [--dim 128] [--vectors lowrank|gaussian] [--reps 9] [--dir /tmp] [--peers]
//                [--keep]
// Exit status: 1 when a query fails or an exact answer differs from a peer's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "omnigraph/omnigraph.h"

namespace {

namespace fs = std::filesystem;
using omnigraph::Database;
using Json = nlohmann::json;

double NowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class T>
T Take(omnigraph::Result<T> r, const char* what) {
  if (!r.ok()) {
    std::fprintf(stderr, "search_bench: %s: %s\n", what, r.status().ToString().c_str());
    std::exit(1);
  }
  return std::move(r).value();
}

// The lines of the fortunes package's English text files (the `%` separators dropped).
std::vector<std::string> CorpusLines() {
  const fs::path dir = "/usr/share/games/fortunes";
  std::vector<std::string> lines;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && !e.path().has_extension()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string line;
    while (std::getline(in, line)) {
      if (line == "%" || line.find_first_not_of(" \t") == std::string::npos) continue;
      bool printable = true;
      for (unsigned char c : line) printable = printable && (c >= 0x20 || c == '\t') && c < 0x7f;
      if (printable) lines.push_back(line);
    }
  }
  if (lines.size() < 1000) {
    std::fprintf(stderr, "search_bench: no text corpus in %s (install the `fortunes` package: scripts/setup.sh)\n",
                 dir.c_str());
    std::exit(1);
  }
  return lines;
}

std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::string w;
  for (char c : s) {
    if (std::isalpha(static_cast<unsigned char>(c))) {
      w.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(w);
  return out;
}

struct Op {
  std::string name;
  std::string source;
  std::vector<std::string> params;  // one JSON object per query
};

std::vector<std::string> Slugs(const omnigraph::QueryRows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows.rows) {
    const omnigraph::Value& v = r.at(0);
    out.push_back(v.is_null() ? "" : v.kind() == omnigraph::TypeKind::kString ? v.string_value() : v.ToString());
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  size_t docs = 100000, dim = 128, reps = 9, authors = 1000;
  std::string vectors_kind = "lowrank";
  std::string dir = fs::temp_directory_path().string();
  bool peers = false, keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "search_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--docs") {
      docs = std::stoul(next());
    } else if (a == "--dim") {
      dim = std::stoul(next());
    } else if (a == "--reps") {
      reps = std::stoul(next());
    } else if (a == "--dir") {
      dir = next();
    } else if (a == "--vectors") {
      vectors_kind = next();
      if (vectors_kind != "lowrank" && vectors_kind != "gaussian") {
        std::fprintf(stderr, "search_bench: --vectors is lowrank or gaussian\n");
        return 2;
      }
    } else if (a == "--peers") {
      peers = true;
    } else if (a == "--keep") {
      keep = true;
    } else {
      std::fprintf(stderr,
                   "usage: search_bench [--docs N] [--dim D] [--vectors lowrank|gaussian] [--reps R] [--dir DIR] "
                   "[--peers] [--keep]\n");
      return 2;
    }
  }
  const fs::path work = fs::path(dir) / ("og-search-bench-" + std::to_string(::getpid()));
  fs::create_directories(work);

  // The corpus, vectors, categories and authors (fixed seed).
  const std::vector<std::string> lines = CorpusLines();
  std::mt19937_64 rng(42);
  std::normal_distribution<float> gauss(0.0f, 1.0f);
  std::vector<std::string> bodies(docs);
  std::vector<float> vectors(docs * dim);
  // A vector: `gaussian`, every coordinate N(0, 1) (no structure: the worst case for any ANN
  // index); `lowrank`, like real embeddings, near a 32-dimensional subspace (A z + 0.1 noise, A a
  // fixed random dim x 32 matrix, z ~ N(0, I)).
  constexpr size_t kIntrinsic = 32;
  std::vector<float> basis(dim * kIntrinsic);
  for (float& x : basis) x = gauss(rng) / 4.0f;
  auto draw = [&](float* out) {
    if (vectors_kind == "gaussian") {
      for (size_t d = 0; d < dim; ++d) out[d] = gauss(rng);
      return;
    }
    float z[kIntrinsic];
    for (float& x : z) x = gauss(rng);
    for (size_t d = 0; d < dim; ++d) {
      float s = 0;
      for (size_t j = 0; j < kIntrinsic; ++j) s += basis[d * kIntrinsic + j] * z[j];
      out[d] = s + 0.1f * gauss(rng);
    }
  };
  {
    std::ofstream nd(work / "docs.ndjson"), data(work / "data.ndjson");
    std::ofstream vec(work / "vectors.f32", std::ios::binary);
    for (size_t a = 0; a < authors; ++a) {
      data << Json{{"type", "Author"}, {"data", {{"name", "a" + std::to_string(a)}}}}.dump() << "\n";
    }
    for (size_t i = 0; i < docs; ++i) {
      const size_t start = rng() % lines.size(), len = 2 + rng() % 5;
      std::string body;
      for (size_t k = 0; k < len; ++k) body += (k ? " " : "") + lines[(start + k) % lines.size()];
      bodies[i] = body;
      char slug[32];
      std::snprintf(slug, sizeof(slug), "d%06zu", i);
      char cat[8];
      std::snprintf(cat, sizeof(cat), "c%02zu", static_cast<size_t>(rng() % 100));
      Json v = Json::array();
      draw(&vectors[i * dim]);
      for (size_t d = 0; d < dim; ++d) v.push_back(vectors[i * dim + d]);
      vec.write(reinterpret_cast<const char*>(&vectors[i * dim]), static_cast<std::streamsize>(dim * sizeof(float)));
      nd << Json{{"slug", slug}, {"body", body}, {"category", cat}}.dump() << "\n";
      data << Json{{"type", "Doc"}, {"data", {{"slug", slug}, {"body", body}, {"category", cat}, {"embedding", v}}}}
                  .dump()
           << "\n";
      data << Json{{"edge", "Wrote"}, {"from", "a" + std::to_string(rng() % authors)}, {"to", slug}}.dump() << "\n";
    }
  }
  // Queries: 20 vectors (random), 20 texts of 2-3 words of middling frequency.
  std::map<std::string, size_t> freq;
  for (size_t i = 0; i < std::min<size_t>(docs, 20000); ++i) {
    for (const std::string& w : Words(bodies[i])) ++freq[w];
  }
  std::vector<std::string> mid;
  for (const auto& [w, n] : freq) {
    if (w.size() >= 4 && n >= 20 && n <= 200) mid.push_back(w);
  }
  Json meta = {{"n", docs}, {"dim", dim}, {"k", 10}, {"filter_category", "c00"}, {"vectors", vectors_kind}};
  std::vector<std::string> texts;
  std::vector<std::vector<float>> qvecs;
  for (size_t q = 0; q < 20; ++q) {
    std::string t;
    const size_t n = 2 + q % 2;
    for (size_t k = 0; k < n; ++k) t += (k ? " " : "") + mid[rng() % mid.size()];
    texts.push_back(t);
    std::vector<float> v(dim);
    draw(v.data());
    qvecs.push_back(v);
  }
  meta["text_queries"] = texts;
  meta["vector_queries"] = qvecs;
  std::ofstream(work / "meta.json") << meta.dump();

  // Load.
  const std::string store = (work / "graph.omni").string();
  const char* schema =
      "node Doc { slug: String @key, body: String @index, category: String @index, embedding: Vector(DIM) @index }\n"
      "node Author { name: String @key }\n"
      "edge Wrote: Author -> Doc\n";
  std::string schema_text = schema;
  schema_text.replace(schema_text.find("DIM"), 3, std::to_string(dim));
  auto db = Take(Database::Init(store, schema_text), "init");
  double t0 = NowMs();
  omnigraph::LoadOptions lo;
  lo.mode = omnigraph::LoadMode::kAppend;
  Take(db->LoadFile((work / "data.ndjson").string(), lo), "load");
  const double load_ms = NowMs() - t0;

  auto vparams = [&] {
    std::vector<std::string> out;
    for (const auto& v : qvecs) out.push_back(Json{{"v", v}}.dump());
    return out;
  };
  std::vector<std::string> tparams, hparams;
  for (size_t q = 0; q < texts.size(); ++q) {
    tparams.push_back(Json{{"q", texts[q]}}.dump());
    hparams.push_back(Json{{"q", texts[q]}, {"v", qvecs[q]}, {"a", "a" + std::to_string(q * 37 % authors)}}.dump());
  }
  std::vector<Op> ops = {
      {"fts_bm25", "query q($q: String) { match { $d: Doc } return { $d.slug } order { bm25($d.body, $q) } limit 10 }",
       tparams},
      {"exact_knn",
       "query q($v: Vector(" + std::to_string(dim) +
           ")) { match { $d: Doc } return { $d.slug } order { nearest($d.embedding, $v) } limit 10 }",
       vparams()},
      {"filtered_knn",
       "query q($v: Vector(" + std::to_string(dim) +
           ")) { match { $d: Doc { category: \"c00\" } } return { $d.slug } order { nearest($d.embedding, $v) } limit "
           "10 }",
       vparams()},
      {"search_count", "query q($q: String) { match { $d: Doc search($d.body, $q) } return { count($d) as n } }",
       tparams},
      {"hybrid_1hop",
       "query q($a: String, $q: String, $v: Vector(" + std::to_string(dim) +
           ")) { match { $au: Author { name: $a } $au wrote $d } return { $d.slug } order { "
           "rrf(nearest($d.embedding, $v), bm25($d.body, $q)) } limit 10 }",
       hparams},
  };
  Json ours = {{"load_ms", load_ms}, {"ops", Json::object()}};
  double fts_index_ms = NAN;
  auto run = [&](const Op& op) {
    std::vector<double> times;
    Json answers = Json::array();
    for (size_t q = 0; q < op.params.size(); ++q) {
      const double w0 = NowMs();
      auto first = Take(db->Query(op.source, op.params[q]), op.name.c_str());
      if (op.name == "fts_bm25" && q == 0) fts_index_ms = NowMs() - w0;
      answers.push_back(Slugs(first));
      for (size_t r = 0; r < reps; ++r) {
        const double s = NowMs();
        Take(db->Query(op.source, op.params[q]), op.name.c_str());
        times.push_back(NowMs() - s);
      }
    }
    ours["ops"][op.name] = {{"median_ms", Median(times)}, {"answers", answers}};
    std::fprintf(stderr, "%-14s median %8.3f ms\n", op.name.c_str(), Median(times));
  };
  for (const Op& op : ops) run(op);
  ours["fts_index_ms"] = fts_index_ms;

  // ANN: `optimize` (compaction, read structures, and the embedding's HNSW segment); the same
  // kNN queries then rank the index's candidates exactly (the 1% filter stays exact: too few rows).
  const double o0 = NowMs();
  const omnigraph::OptimizeSummary opt = Take(db->Optimize(), "optimize");
  const double optimize_ms = NowMs() - o0;
  uint64_t ann_bytes = 0, text_bytes = 0;
  for (const auto& x : opt.search_indexes) {
    if (x.property == "embedding") ann_bytes = x.bytes;
    if (x.property == "body") text_bytes = x.bytes;
  }
  // The body's index of the optimized version: assembled from its text segment (no analysis).
  double t1 = NowMs();
  Take(db->Query(ops[0].source, ops[0].params[0]), "bm25 from the segment");
  const double fts_segment_ms = NowMs() - t1;
  const std::vector<Op> ann_ops = {{"ann_knn", ops[1].source, ops[1].params},
                                   {"ann_filtered_knn", ops[2].source, ops[2].params},
                                   {"ann_hybrid_1hop", ops[4].source, ops[4].params}};
  for (const Op& op : ann_ops) run(op);
  // One new document, then the first bm25 query: the segment plus one analyzed row.
  Take(db->Load(Json{{"type", "Doc"},
                     {"data",
                      {{"slug", "fresh"},
                       {"body", bodies[0]},
                       {"category", "c00"},
                       {"embedding", std::vector<float>(vectors.begin(), vectors.begin() + static_cast<long>(dim))}}}}
                        .dump() +
                    "\n",
                omnigraph::LoadMode::kAppend),
       "one-row write");
  t1 = NowMs();
  Take(db->Query(ops[0].source, ops[0].params[1]), "bm25 after a write");
  const double fts_after_write_ms = NowMs() - t1;
  double recall = 0;
  {
    const Json& exact = ours["ops"]["exact_knn"]["answers"];
    const Json& ann = ours["ops"]["ann_knn"]["answers"];
    size_t hit = 0, total = 0;
    for (size_t q = 0; q < exact.size() && q < ann.size(); ++q) {
      std::set<std::string> x(exact[q].begin(), exact[q].end());
      total += x.size();
      for (const auto& slug : ann[q]) hit += x.count(slug.get<std::string>());
    }
    recall = total ? static_cast<double>(hit) / static_cast<double>(total) : NAN;
  }
  ours["optimize_ms"] = optimize_ms;
  ours["ann_bytes"] = ann_bytes;
  ours["ann_recall"] = recall;
  ours["fts_segment_ms"] = fts_segment_ms;
  ours["fts_after_write_ms"] = fts_after_write_ms;

  Json theirs;
  int rc = 0;
  if (peers) {
    const std::string cmd = "node bench/peers/search.js --data " + work.string() + " --reps " + std::to_string(reps) +
                            " --out " + (work / "peers.json").string() + " 1>&2";
    if (std::system(cmd.c_str()) != 0) {
      std::fprintf(stderr, "search_bench: the peers failed (%s)\n", cmd.c_str());
      rc = 1;
    } else {
      std::ifstream in(work / "peers.json");
      theirs = Json::parse(in, nullptr, false);
    }
  }
  // Exact answers must agree with LanceDB's brute force (as sets: equal distances may order apart).
  if (theirs.is_object() && theirs.contains("peers") && theirs["peers"].contains("lancedb")) {
    for (const char* op : {"exact_knn", "filtered_knn"}) {
      const Json& a = ours["ops"][op]["answers"];
      const Json& b = theirs["peers"]["lancedb"]["ops"][op]["answers"];
      for (size_t q = 0; q < a.size() && q < b.size(); ++q) {
        std::set<std::string> x(a[q].begin(), a[q].end()), y(b[q].begin(), b[q].end());
        if (x != y) {
          std::fprintf(stderr, "search_bench: %s query %zu differs from LanceDB's\n", op, q);
          rc = 1;
        }
      }
    }
  }
  // BM25 top-k overlap with each peer (analyzers differ a little: SQLite's porter, LanceDB's).
  std::map<std::string, double> overlap;
  if (theirs.is_object() && theirs.contains("peers")) {
    for (const char* peer : {"lancedb", "sqlite"}) {
      if (!theirs["peers"].contains(peer) || !theirs["peers"][peer]["ops"].contains("fts_bm25")) continue;
      const Json& a = ours["ops"]["fts_bm25"]["answers"];
      const Json& b = theirs["peers"][peer]["ops"]["fts_bm25"]["answers"];
      double sum = 0;
      size_t n = 0;
      for (size_t q = 0; q < a.size() && q < b.size(); ++q) {
        std::set<std::string> x(a[q].begin(), a[q].end());
        size_t common = 0;
        for (const auto& slug : b[q]) common += x.count(slug.get<std::string>());
        sum += static_cast<double>(common) / 10.0;
        ++n;
      }
      if (n > 0) overlap[peer] = sum / static_cast<double>(n);
    }
  }
  std::printf(
      "search_bench: %zu documents (fortunes text), Vector(%zu) %s, %zu authors; medians of 20 queries x %zu reps\n\n",
      docs, dim, vectors_kind.c_str(), authors, reps);
  std::printf(
      "| op | omnigraph ms | lancedb ms | sqlite fts5 ms | omnigraph / fastest peer |\n|---|---:|---:|---:|---:|\n");
  auto peer_ms = [&](const char* peer, const std::string& op) -> double {
    if (!theirs.is_object() || !theirs.contains("peers") || !theirs["peers"].contains(peer)) return NAN;
    const Json& p = theirs["peers"][peer];
    if (!p.contains("ops") || !p["ops"].contains(op)) return NAN;
    return p["ops"][op].value("median_ms", NAN);
  };
  std::vector<Op> all = ops;
  all.insert(all.end(), ann_ops.begin(), ann_ops.end());
  for (const Op& op : all) {
    const double o = ours["ops"][op.name]["median_ms"];
    // LanceDB's HNSW answers ann_knn; the other ANN rows have no peer run.
    const double l = peer_ms("lancedb", op.name), s = peer_ms("sqlite", op.name);
    double best = NAN;
    for (double x : {l, s}) {
      if (!std::isnan(x) && (std::isnan(best) || x < best)) best = x;
    }
    std::printf("| %s | %.3f | %.3f | %.3f | %.2f |\n", op.name.c_str(), o, l, s, o / best);
  }
  std::printf("\nload (one commit, %zu docs + %zu edges): %.0f ms; first bm25 query (builds the body index): %.0f ms\n",
              docs, docs, load_ms, fts_index_ms);
  std::printf(
      "ours: optimize (compaction, text and HNSW segments, read structures) %.0f ms; HNSW %.1f MiB, text "
      "segment %.1f MiB; ann recall@10 %.3f against the exact answers\n",
      optimize_ms, static_cast<double>(ann_bytes) / (1 << 20), static_cast<double>(text_bytes) / (1 << 20), recall);
  std::printf(
      "ours: first bm25 query from the text segment %.0f ms; after a one-row write %.0f ms (full build: %.0f "
      "ms)\n",
      fts_segment_ms, fts_after_write_ms, fts_index_ms);
  for (const auto& [peer, o] : overlap) std::printf("bm25 top-10 overlap with %s: %.2f\n", peer.c_str(), o);
  if (theirs.is_object() && theirs.contains("peers")) {
    for (const auto& [name, p] : theirs["peers"].items()) {
      std::printf("  %s: load %.0f ms", name.c_str(), p.value("load_ms", NAN));
      if (p.contains("fts_index_ms")) std::printf(", fts index %.0f ms", p.value("fts_index_ms", NAN));
      if (p.contains("ann_index_ms")) std::printf(", ann index %.0f ms", p.value("ann_index_ms", NAN));
      if (p.contains("ann_recall")) {
        std::printf(
            ", ann recall@10 %.3f at %.3f ms", p.value("ann_recall", NAN),
            p.contains("ops") && p["ops"].contains("ann_knn") ? p["ops"]["ann_knn"].value("median_ms", NAN) : NAN);
      }
      std::printf("\n");
    }
  }
  std::ofstream(work / "ours.json") << ours.dump();
  db.reset();
  if (!keep) {
    std::error_code ec;
    fs::remove_all(work, ec);
  } else {
    std::printf("kept: %s\n", work.c_str());
  }
  return rc;
}
