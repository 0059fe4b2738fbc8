#!/usr/bin/env node
// Side-by-side peer benchmark for search: exact and filtered k-nearest-neighbour search, BM25
// full-text search and approximate (HNSW) k-nearest-neighbour search on LanceDB (in-process, a
// table in a temporary directory under os.tmpdir(), removed at the end) and SQLite FTS5
// (better-sqlite3, in memory), on the dataset that bench/search_bench.cc writes:
//   DIR/docs.ndjson   one {"slug", "body", "category"} object per line (N lines)
//   DIR/vectors.f32   N x D little-endian float32, row i = the document on line i
//   DIR/meta.json     {"n", "dim", "k", "text_queries": [...], "vector_queries": [[D floats]...],
//                      "filter_category"}
// Every peer runs in its own child process (clean RSS, one crash does not take the others down).
// The answers (slugs per query) are written to the --out JSON so that Omnigraph's own search
// benchmark can compare: exact_knn and filtered_knn must be the same sets up to distance ties,
// fts_bm25 is compared by overlap@k (the tokenizers differ).
//   node bench/peers/search.js --data DIR [--reps 9] [--out FILE] [--peers lancedb,sqlite]
//                              [--ef 100] [--refine 0] [--no-reference]
// Operations (each query of the list runs once to warm up, then --reps times; the median over
// all (query, rep) wall times, from building the query to having the k result rows in JavaScript,
// is reported in ms):
//   exact_knn     top-k by L2 over all N vectors, no vector index (LanceDB: flat search)
//   filtered_knn  the same among the rows with category = filter_category, filter applied
//                 before the search (LanceDB's default prefilter), still no index
//   fts_bm25      top-k by BM25 on body for each text query (LanceDB: an FTS index with the
//                 default tokenizer; SQLite: FTS5 'porter unicode61', the query's words OR'ed)
//   ann_knn       LanceDB only: top-k through an IVF_HNSW_SQ index (one partition, so one HNSW
//                 graph; m 20, ef_construction 300, 8-bit scalar quantization; query ef --ef, and
//                 with --refine F > 0 the F*k nearest by quantized distance re-ranked by the exact
//                 one), with recall@k against exact_knn
// Load time is the time from the documents as JavaScript arrays to the peer's table (LanceDB:
// Arrow table + createTable written to disk; SQLite: one transaction of INSERTs into FTS5, which
// indexes as it inserts). Index build times and on-disk (SQLite: in-memory page) sizes are
// reported per index.
// Unless --no-reference, a plain-JavaScript exact k-NN over vectors.f32 checks LanceDB's
// exact_knn and filtered_knn answers (same sets up to ties at the k-th distance).
// Exit status: 0 when every peer ran and the checks pass, 1 otherwise (the JSON is written
// either way).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const PEER_NAMES = ['lancedb', 'sqlite'];
const OPS = ['exact_knn', 'filtered_knn', 'fts_bm25', 'ann_knn'];
// The ANN index LanceDB builds (its defaults for m and ef_construction, named here so that the
// output says what was measured).
const ANN = { type: 'IVF_HNSW_SQ', distance: 'l2', num_partitions: 1, m: 20, ef_construction: 300 };

// ---------------------------------------------------------------------------------------------
function parseArgs(argv) {
  const a = { data: null, reps: 9, out: null, peers: [...PEER_NAMES], ef: 100, refine: 0, reference: true,
    worker: null, resultFile: null };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    if (k === '--data') a.data = v, i++;
    else if (k === '--reps') a.reps = Number(v), i++;
    else if (k === '--out') a.out = v, i++;
    else if (k === '--peers') a.peers = String(v).split(',').filter(Boolean), i++;
    else if (k === '--ef') a.ef = Number(v), i++;
    else if (k === '--refine') a.refine = Number(v), i++;
    else if (k === '--no-reference') a.reference = false;
    else if (k === '--worker') a.worker = v, i++;
    else if (k === '--result-file') a.resultFile = v, i++;
    else if (k === '-h' || k === '--help') {
      console.log('usage: search.js --data DIR [--reps 9] [--out FILE] [--peers lancedb,sqlite] [--ef 100] [--refine 0] [--no-reference]');
      process.exit(0);
    } else {
      console.error(`search.js: unknown argument ${k}`);
      process.exit(2);
    }
  }
  if (!a.data) { console.error('search.js: --data DIR is required'); process.exit(2); }
  a.data = path.resolve(a.data);
  if (!a.out) a.out = path.join(a.data, 'search_peers.json');
  if (!(Number.isInteger(a.reps) && a.reps >= 1)) { console.error('search.js: --reps must be >= 1'); process.exit(2); }
  if (!(Number.isInteger(a.ef) && a.ef >= 1)) { console.error('search.js: --ef must be >= 1'); process.exit(2); }
  if (!(Number.isInteger(a.refine) && a.refine >= 0)) { console.error('search.js: --refine must be >= 0'); process.exit(2); }
  for (const p of a.peers) {
    if (!PEER_NAMES.includes(p)) { console.error(`search.js: unknown peer ${p} (${PEER_NAMES.join(', ')})`); process.exit(2); }
  }
  return a;
}

function nowMs() { return Number(process.hrtime.bigint()) / 1e6; }
function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function round(x, d = 3) { const f = 10 ** d; return Math.round(x * f) / f; }
function mb(bytes) { return bytes === null || bytes === undefined ? null : round(bytes / (1 << 20), 2); }
// Peak resident set size of this process so far (VmHWM), in bytes.
function peakRss() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch (_) { /* not Linux */ }
  return null;
}
function pkgVersion(name) {
  try {
    return JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch (_) { return null; }
}
// Bytes of the regular files under p (recursively).
function duBytes(p) {
  let st;
  try { st = fs.lstatSync(p); } catch (_) { return 0; }
  if (st.isFile()) return st.size;
  if (!st.isDirectory()) return 0;
  let sum = 0;
  for (const e of fs.readdirSync(p)) sum += duBytes(path.join(p, e));
  return sum;
}
function sqlString(s) { return `'${String(s).replaceAll("'", "''")}'`; }

// ---------------------------------------------------------------------------------------------
// The dataset.
function readMeta(dir) {
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  for (const f of ['n', 'dim', 'k']) {
    if (!(Number.isInteger(meta[f]) && meta[f] >= 1)) throw new Error(`meta.json: ${f} must be a positive integer`);
  }
  meta.text_queries = meta.text_queries || [];
  meta.vector_queries = meta.vector_queries || [];
  for (const [i, q] of meta.vector_queries.entries()) {
    if (!Array.isArray(q) || q.length !== meta.dim) throw new Error(`meta.json: vector_queries[${i}] has ${q && q.length} values, dim is ${meta.dim}`);
  }
  return meta;
}

// -> {slugs, bodies, categories} (arrays of N strings, in file order).
function readDocs(dir, n) {
  const text = fs.readFileSync(path.join(dir, 'docs.ndjson'), 'utf8');
  const slugs = [];
  const bodies = [];
  const categories = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end > start) {
      const o = JSON.parse(text.slice(start, end));
      slugs.push(String(o.slug));
      bodies.push(String(o.body ?? ''));
      categories.push(String(o.category ?? ''));
    }
    start = end + 1;
  }
  if (slugs.length !== n) throw new Error(`docs.ndjson: ${slugs.length} documents, meta.json says n = ${n}`);
  return { slugs, bodies, categories };
}

// -> Float32Array of n * dim (row-major).
function readVectors(dir, n, dim) {
  const buf = fs.readFileSync(path.join(dir, 'vectors.f32'));
  if (buf.length !== n * dim * 4) throw new Error(`vectors.f32: ${buf.length} bytes, expected n*dim*4 = ${n * dim * 4}`);
  if (os.endianness() === 'LE' && buf.byteOffset % 4 === 0) return new Float32Array(buf.buffer, buf.byteOffset, n * dim);
  const out = new Float32Array(n * dim);
  for (let i = 0; i < n * dim; i++) out[i] = buf.readFloatLE(i * 4);
  return out;
}

// An FTS5 MATCH expression from plain words: each word quoted ("" escapes a quote), OR'ed, so
// that FTS5 syntax characters in the text cannot break the query. Words without a letter or
// digit are dropped (unicode61 would make no token of them). null when nothing is left.
function fts5Match(text) {
  const words = String(text).split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (!words.length) return null;
  return words.map((w) => `"${w.replaceAll('"', '""')}"`).join(' OR ');
}

// ---------------------------------------------------------------------------------------------
// Peers. Each: ops (the operations it runs), open(), load(data) -> {steps}, and per operation
// prepare<Op>(ctx) -> info (index build etc.) and a query function (q) -> {slugs, scores}.
const PEERS = {
  lancedb: {
    ops: ['exact_knn', 'filtered_knn', 'fts_bm25', 'ann_knn'],
    async open() {
      this.lancedb = require('@lancedb/lancedb');
      this.arrow = require('apache-arrow');
      this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'og-search-lancedb-'));
      process.on('exit', () => fs.rmSync(this.dir, { recursive: true, force: true }));
      this.db = await this.lancedb.connect(this.dir);
    },
    // Arrow table (slug, body, category: Utf8; vector: FixedSizeList<Float32>[dim]) built from
    // the arrays directly (no per-row objects), then createTable, which writes the Lance files.
    async load(data) {
      const arrow = this.arrow;
      const { n, dim } = data.meta;
      const steps = {};
      let t = nowMs();
      const listType = new arrow.FixedSizeList(dim, new arrow.Field('item', new arrow.Float32(), true));
      const schema = new arrow.Schema([
        new arrow.Field('slug', new arrow.Utf8(), false),
        new arrow.Field('body', new arrow.Utf8(), false),
        new arrow.Field('category', new arrow.Utf8(), false),
        new arrow.Field('vector', listType, false),
      ]);
      const utf8 = (xs) => arrow.vectorFromArray(xs, new arrow.Utf8()).data[0];
      const vectors = arrow.makeData({ type: listType, length: n, nullCount: 0,
        child: arrow.makeData({ type: new arrow.Float32(), length: n * dim, data: data.vectors }) });
      const table = new arrow.Table(schema, arrow.makeData({ type: new arrow.Struct(schema.fields), length: n, nullCount: 0,
        children: [utf8(data.slugs), utf8(data.bodies), utf8(data.categories), vectors] }));
      steps.arrow_ms = nowMs() - t;
      t = nowMs();
      this.table = await this.db.createTable('docs', table, { mode: 'overwrite' });
      steps.write_ms = nowMs() - t;
      const rows = await this.table.countRows();
      if (rows !== n) throw new Error(`lancedb: table has ${rows} rows, expected ${n}`);
      this.tableDir = path.join(this.dir, 'docs.lance');
      return { load_ms: steps.arrow_ms + steps.write_ms, steps, data_bytes: duBytes(path.join(this.tableDir, 'data')) };
    },
    async indexInfo(column) {
      const ix = (await this.table.listIndices()).find((i) => i.columns.includes(column));
      if (!ix) throw new Error(`lancedb: no index on ${column} after createIndex`);
      const stats = await this.table.indexStats(ix.name);
      if (stats && stats.numUnindexedRows) throw new Error(`lancedb: index ${ix.name} leaves ${stats.numUnindexedRows} rows unindexed`);
      const dirBytes = ix.indexUuid ? duBytes(path.join(this.tableDir, '_indices', ix.indexUuid)) : null;
      return { name: ix.name, index_type: ix.indexType, bytes: dirBytes || ix.sizeBytes || null,
        reported_size_bytes: ix.sizeBytes ?? null, details: ix.indexDetails ?? null };
    },
    async vectorIndexes() {
      return (await this.table.listIndices()).filter((i) => i.columns.includes('vector'));
    },
    // exact_knn / filtered_knn: flat search. No vector index exists yet (checked), and
    // bypassVectorIndex() makes the flat search explicit anyway.
    async prepare_exact_knn() {
      if ((await this.vectorIndexes()).length) throw new Error('lancedb: a vector index exists before exact_knn');
      return {};
    },
    async exact_knn(q, ctx) {
      const rows = await this.table.vectorSearch(q.vector).distanceType('l2').bypassVectorIndex()
        .select(['slug', '_distance']).limit(ctx.k).toArray();
      return { slugs: rows.map((r) => r.slug), scores: rows.map((r) => r._distance) };
    },
    async prepare_filtered_knn() { return this.prepare_exact_knn(); },
    // .where() is a prefilter by default in LanceDB 0.39 (.postfilter() would opt out).
    async filtered_knn(q, ctx) {
      const rows = await this.table.vectorSearch(q.vector).distanceType('l2').bypassVectorIndex()
        .where(`category = ${sqlString(ctx.filter_category)}`).select(['slug', '_distance']).limit(ctx.k).toArray();
      return { slugs: rows.map((r) => r.slug), scores: rows.map((r) => r._distance) };
    },
    async prepare_fts_bm25(ctx) {
      const t = nowMs();
      await this.table.createIndex('body', { config: this.lancedb.Index.fts() });
      const ms = nowMs() - t;
      const info = await this.indexInfo('body');
      // How the default tokenizer analyses each query (to explain overlap with other tokenizers).
      const tokens = [];
      for (const text of ctx.text_queries) {
        try { tokens.push((await this.table.tokenize(text, { column: 'body' })).map((x) => x.text)); } catch (_) { tokens.push(null); }
      }
      return { fts_index_ms: ms, fts_index_bytes: info.bytes, fts_index: { ...info, query_tokens: tokens } };
    },
    async fts_bm25(q, ctx) {
      const rows = await this.table.query().fullTextSearch(q.text).select(['slug', '_score']).limit(ctx.k).toArray();
      return { slugs: rows.map((r) => r.slug), scores: rows.map((r) => r._score) };
    },
    async prepare_ann_knn(ctx) {
      const t = nowMs();
      await this.table.createIndex('vector', { config: this.lancedb.Index.hnswSq({ distanceType: ANN.distance,
        numPartitions: ANN.num_partitions, m: ANN.m, efConstruction: ANN.ef_construction }) });
      const ms = nowMs() - t;
      const info = await this.indexInfo('vector');
      return { ann_index_ms: ms, ann_index_bytes: info.bytes, ann_index: { ...ANN, ef: ctx.ef, refine_factor: ctx.refine || null, ...info } };
    },
    // Without refineFactor the ranking (and _distance) is by the 8-bit quantized vectors, which
    // caps recall below 1 whatever ef is; refineFactor works on HNSW_SQ too (0.39 documents it
    // for IVF_PQ only).
    async ann_knn(q, ctx) {
      let query = this.table.vectorSearch(q.vector).distanceType('l2').ef(ctx.ef);
      if (ctx.refine) query = query.refineFactor(ctx.refine);
      const rows = await query.select(['slug', '_distance']).limit(ctx.k).toArray();
      return { slugs: rows.map((r) => r.slug), scores: rows.map((r) => r._distance) };
    },
    async version() {
      return { package: `@lancedb/lancedb@${pkgVersion('@lancedb/lancedb')}`, arrow: `apache-arrow@${pkgVersion('apache-arrow')}`,
        storage: 'local disk, os.tmpdir()', threads: 'LanceDB default (all cores)' };
    },
    async close() { if (this.table) this.table.close(); if (this.db) this.db.close(); },
  },

  sqlite: {
    ops: ['fts_bm25'],
    async open() {
      const Database = require('better-sqlite3');
      this.db = new Database(':memory:');
      this.db.pragma('journal_mode = OFF');
      this.db.pragma('synchronous = OFF');
      this.db.pragma('temp_store = MEMORY');
    },
    // FTS5 builds its index while rows are inserted: the one transaction is the load and the
    // index build; 'optimize' then merges the index segments into one b-tree.
    async load(data) {
      const db = this.db;
      const steps = {};
      db.exec("CREATE VIRTUAL TABLE docs USING fts5(slug UNINDEXED, body, tokenize='porter unicode61')");
      const ins = db.prepare('INSERT INTO docs(slug, body) VALUES (?, ?)');
      let t = nowMs();
      db.exec('BEGIN');
      for (let i = 0; i < data.slugs.length; i++) ins.run(data.slugs[i], data.bodies[i]);
      db.exec('COMMIT');
      steps.insert_ms = nowMs() - t;
      t = nowMs();
      db.exec("INSERT INTO docs(docs) VALUES('optimize')");
      steps.optimize_ms = nowMs() - t;
      this.steps = steps;
      const sizes = this.sizes();
      return { load_ms: steps.insert_ms, steps, data_bytes: sizes.content };
    },
    // Page bytes per FTS5 shadow table (dbstat), in memory: the index is everything but the
    // stored copy of the rows (docs_content).
    sizes() {
      const out = { content: null, index: null, total: null };
      try {
        const rows = this.db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name').all();
        out.total = 0;
        out.index = 0;
        for (const r of rows) {
          out.total += r.bytes;
          if (r.name === 'docs_content') out.content = r.bytes;
          else if (r.name.startsWith('docs_')) out.index += r.bytes;
        }
      } catch (_) {
        out.total = this.db.pragma('page_count', { simple: true }) * this.db.pragma('page_size', { simple: true });
      }
      return out;
    },
    async prepare_fts_bm25() {
      const s = this.sizes();
      return { fts_index_ms: this.steps.insert_ms + this.steps.optimize_ms, fts_index_bytes: s.index,
        fts_index: { tokenize: 'porter unicode61', built: 'during the INSERT transaction, then optimize', db_bytes: s.total,
          in_memory: true } };
    },
    // Prepared per run, as in run.js.
    async fts_bm25(q, ctx) {
      if (q.match === null) return { slugs: [], scores: [] };
      const rows = this.db.prepare('SELECT slug, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?')
        .raw(true).all(q.match, ctx.k);
      return { slugs: rows.map((r) => r[0]), scores: rows.map((r) => r[1]) };
    },
    async version() {
      const v = this.db.prepare('SELECT sqlite_version()').pluck().get();
      return { sqlite: v, package: `better-sqlite3@${pkgVersion('better-sqlite3')}`, storage: 'in memory', threads: 1 };
    },
    async close() { this.db.close(); },
  },
};

async function worker(opts) {
  const peer = PEERS[opts.worker];
  const res = { peer: opts.worker, ok: false };
  const rssStart = process.memoryUsage().rss;
  const meta = readMeta(opts.data);
  let t = nowMs();
  const data = { meta, ...readDocs(opts.data, meta.n) };
  if (peer.ops.some((op) => op.endsWith('knn'))) data.vectors = readVectors(opts.data, meta.n, meta.dim);
  res.read_ms = round(nowMs() - t, 1);
  await peer.open(opts);
  const loaded = await peer.load(data);
  res.load_ms = round(loaded.load_ms, 1);
  res.load_steps_ms = Object.fromEntries(Object.entries(loaded.steps).map(([k, v]) => [k, round(v, 1)]));
  res.data_bytes = loaded.data_bytes;
  res.rss_before_load_mb = mb(rssStart);
  res.rss_after_load_mb = mb(process.memoryUsage().rss);
  res.version = await peer.version();
  const ctx = { k: meta.k, ef: opts.ef, refine: opts.refine, filter_category: String(meta.filter_category ?? ''), text_queries: meta.text_queries };
  const queries = {
    vector: meta.vector_queries.map((v) => ({ vector: Float32Array.from(v) })),
    text: meta.text_queries.map((s) => ({ text: String(s), match: fts5Match(s) })),
  };
  data.vectors = null;  // the peer has its copy
  res.ops = {};
  for (const op of OPS) {
    if (!peer.ops.includes(op)) continue;
    const info = await peer[`prepare_${op}`](ctx);
    for (const [key, v] of Object.entries(info)) res[key] = typeof v === 'number' && key.endsWith('_ms') ? round(v, 1) : v;
    const list = op === 'fts_bm25' ? queries.text : queries.vector;
    const runs = [];
    const perQuery = [];
    const answers = [];
    const scores = [];
    let changed = 0;
    for (const q of list) {
      const warm = await peer[op](q, ctx);
      answers.push(warm.slugs);
      scores.push(warm.scores.map((x) => (x === null || x === undefined ? null : Number(x))));
      const mine = [];
      for (let i = 0; i < opts.reps; i++) {
        const t0 = nowMs();
        const r = await peer[op](q, ctx);
        mine.push(nowMs() - t0);
        if (r.slugs.join('\n') !== warm.slugs.join('\n')) changed++;
      }
      runs.push(...mine);
      perQuery.push(round(median(mine)));
    }
    // No timing fields without queries (a reader's value("median_ms", NAN) then falls back).
    res.ops[op] = {
      ...(runs.length ? { median_ms: round(median(runs)), min_ms: round(Math.min(...runs)), max_ms: round(Math.max(...runs)) } : {}),
      timings: runs.length,
      per_query_median_ms: perQuery,
      answers_changed_between_runs: changed,
      answers,
      [op === 'fts_bm25' ? 'scores' : 'distances']: scores,
    };
  }
  if (res.ops.ann_knn && res.ops.exact_knn) {
    const r = recallAtK(res.ops.ann_knn.answers, res.ops.exact_knn.answers, meta.k);
    res.ops.ann_knn.recall_per_query = r.perQuery;
    if (r.mean !== null) res.ann_recall = r.mean;
  }
  res.peak_rss_mb = peakRss() === null ? null : mb(peakRss());
  await peer.close();
  res.ok = true;
  return res;
}

// Mean over queries of |got ∩ want| / min(k, |want|) (a query with no true neighbour counts 1).
function recallAtK(got, want, k) {
  const perQuery = want.map((w, i) => {
    const denom = Math.min(k, w.length);
    if (!denom) return 1;
    const set = new Set(w.slice(0, k));
    return round((got[i] || []).slice(0, k).filter((s) => set.has(s)).length / denom, 4);
  });
  return { perQuery, mean: perQuery.length ? round(perQuery.reduce((a, b) => a + b, 0) / perQuery.length, 4) : null };
}

// ---------------------------------------------------------------------------------------------
// Reference exact k-NN in plain JavaScript (squared L2 in float64 over the float32 values), to
// check LanceDB's exact answers. For each query: the k nearest (all rows, and the filter rows),
// and every row's squared distance for tie checks.
function reference(dir, meta, categories) {
  const t0 = nowMs();
  const { n, dim, k } = meta;
  const vec = readVectors(dir, n, dim);
  const cat = String(meta.filter_category ?? '');
  const filterRows = [];
  for (let i = 0; i < n; i++) if (categories[i] === cat) filterRows.push(i);
  const out = { exact_knn: [], filtered_knn: [], dist: [] };
  for (const qv of meta.vector_queries) {
    const d = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * dim;
      for (let j = 0; j < dim; j++) { const x = vec[o + j] - qv[j]; s += x * x; }
      d[i] = s;
    }
    const top = (rows) => {
      const ids = rows === null ? Array.from({ length: n }, (_, i) => i) : [...rows];
      ids.sort((a, b) => d[a] - d[b] || a - b);
      return ids.slice(0, k);
    };
    out.exact_knn.push(top(null));
    out.filtered_knn.push(top(filterRows));
    out.dist.push(d);
  }
  return { ...out, filter_rows: filterRows.length, ms: round(nowMs() - t0, 1) };
}

// Same sets up to ties: equal length, and every slug that is not in the reference top-k is
// in the right subset and no farther than the reference's k-th distance (relative 1e-5).
function checkKnn(op, peerName, got, ref, slugs, slugIndex, categories, filterCat) {
  const problems = [];
  let exactSame = 0;
  got.forEach((answer, qi) => {
    const want = ref[op][qi];
    const d = ref.dist[qi];
    if (answer.length !== want.length) {
      problems.push(`${peerName} ${op} query ${qi}: ${answer.length} results, expected ${want.length}`);
      return;
    }
    if (!want.length) { exactSame++; return; }
    const wantSet = new Set(want.map((i) => slugs[i]));
    const kth = d[want[want.length - 1]];
    const tol = 1e-5 * Math.max(1, kth);
    let same = true;
    for (const s of answer) {
      if (wantSet.has(s)) continue;
      same = false;
      const i = slugIndex.get(s);
      if (i === undefined) { problems.push(`${peerName} ${op} query ${qi}: unknown slug ${s}`); continue; }
      if (op === 'filtered_knn' && categories[i] !== filterCat) problems.push(`${peerName} ${op} query ${qi}: ${s} is not in category ${filterCat}`);
      else if (d[i] > kth + tol) problems.push(`${peerName} ${op} query ${qi}: ${s} at ${d[i]} is farther than the k-th ${kth}`);
    }
    if (same) exactSame++;
  });
  return { problems, identical_sets: exactSame, queries: got.length };
}

// Overlap@k of two answer lists: mean over queries of |a ∩ b| / max(|a|, |b|) (1 when both empty).
function overlapAtK(a, b) {
  const perQuery = a.map((x, i) => {
    const y = b[i] || [];
    const denom = Math.max(x.length, y.length);
    if (!denom) return 1;
    const set = new Set(y);
    return round(x.filter((s) => set.has(s)).length / denom, 4);
  });
  return { mean: perQuery.length ? round(perQuery.reduce((s, v) => s + v, 0) / perQuery.length, 4) : null, per_query: perQuery };
}

// ---------------------------------------------------------------------------------------------
function printTable(results) {
  const names = Object.keys(results.peers).filter((p) => results.peers[p].ok);
  const peers = names.map((p) => results.peers[p]);
  const w = 13;
  const pad = (s) => String(s ?? '-').padStart(w);
  const num = (x, d = 2) => (x === null || x === undefined ? '-' : Number(x).toFixed(d));
  const lines = [];
  const row = (label, f) => lines.push(`${label.padEnd(20)}${peers.map((p) => pad(f(p))).join('')}`);
  lines.push(`${'ms (median)'.padEnd(20)}${names.map((c) => pad(c)).join('')}`);
  row('load', (p) => num(p.load_ms, 1));
  row('data (MB)', (p) => num(mb(p.data_bytes)));
  row('fts index build', (p) => num(p.fts_index_ms, 1));
  row('fts index (MB)', (p) => num(mb(p.fts_index_bytes)));
  row('ann index build', (p) => num(p.ann_index_ms, 1));
  row('ann index (MB)', (p) => num(mb(p.ann_index_bytes)));
  for (const op of OPS) row(op, (p) => (p.ops[op] ? num(p.ops[op].median_ms, 3) : '-'));
  row('ann recall@k', (p) => num(p.ann_recall, 4));
  row('peak rss (MB)', (p) => num(p.peak_rss_mb, 1));
  for (const [name, c] of Object.entries(results.checks)) {
    if (c.identical_sets !== undefined) lines.push(`check ${name}: ${c.identical_sets}/${c.queries} identical sets, ${c.problems.length} problems`);
    else if (c.mean !== undefined) lines.push(`check ${name}: overlap@k ${c.mean} (per query ${c.per_query.join(' ')})`);
  }
  for (const [name, p] of Object.entries(results.peers)) if (!p.ok) lines.push(`${name}: FAILED: ${p.error}`);
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv);
  if (opts.worker) {
    let res;
    try {
      res = await worker(opts);
    } catch (e) {
      res = { peer: opts.worker, ok: false, error: String(e && e.stack || e) };
    }
    fs.writeFileSync(opts.resultFile, JSON.stringify(res));
    process.exit(res.ok ? 0 : 1);
  }

  const meta = readMeta(opts.data);
  const results = {
    benchmark: 'bench/peers/search.js',
    started: new Date().toISOString(),
    data: { dir: opts.data, n: meta.n, dim: meta.dim, k: meta.k, filter_category: meta.filter_category ?? null,
      text_queries: meta.text_queries, vector_queries: meta.vector_queries.length, filter_rows: null },
    reps: opts.reps,
    ann: { ...ANN, ef: opts.ef, refine_factor: opts.refine || null },
    timing: 'per op: median wall ms over all (query, rep) of --reps runs per query after one warm-up run; query built in JS to k rows in JS',
    machine: { nproc: os.cpus().length, cpu: os.cpus()[0] && os.cpus()[0].model, mem_gb: round(os.totalmem() / 2 ** 30, 1),
      loadavg_at_start: os.loadavg().map((x) => round(x, 2)), platform: `${os.platform()} ${os.release()}` },
    node: process.version,
    peers: {},
    reference: null,
    checks: {},
    problems: [],
  };
  const problems = results.problems;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'og-search-peers-'));
  for (const name of opts.peers) {
    const file = path.join(tmp, `${name}.json`);
    const args = [__filename, '--worker', name, '--result-file', file, '--data', opts.data, '--reps', String(opts.reps),
      '--ef', String(opts.ef), '--refine', String(opts.refine), '--peers', name];
    console.error(`search.js: ${name} ...`);
    const t = nowMs();
    // LanceDB logs warnings (e.g. "No existing dataset ... will be created") unless told not to.
    const env = { ...process.env, LANCEDB_LOG: process.env.LANCEDB_LOG || 'error' };
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    let res;
    try { res = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (_) {
      res = { peer: name, ok: false, error: `worker exited with status ${r.status} signal ${r.signal}` };
    }
    res.wall_s = round((nowMs() - t) / 1000, 1);
    results.peers[name] = res;
    if (!res.ok) { problems.push(`${name} failed: ${res.error}`); console.error(`search.js: ${name} FAILED: ${res.error}`); continue; }
    console.error(`search.js: ${name} done in ${res.wall_s} s (load ${res.load_ms} ms)`);
  }
  fs.rmSync(tmp, { recursive: true, force: true });

  // Checks: exact answers against the JavaScript reference, BM25 overlap between peers.
  const withKnn = Object.values(results.peers).filter((p) => p.ok && p.ops.exact_knn);
  if (opts.reference && withKnn.length && meta.vector_queries.length) {
    const docs = readDocs(opts.data, meta.n);
    const ref = reference(opts.data, meta, docs.categories);
    const slugIndex = new Map(docs.slugs.map((s, i) => [s, i]));
    results.data.filter_rows = ref.filter_rows;
    results.reference = { ms: ref.ms, exact_knn: ref.exact_knn.map((a) => a.map((i) => docs.slugs[i])),
      filtered_knn: ref.filtered_knn.map((a) => a.map((i) => docs.slugs[i])) };
    console.error(`search.js: reference exact k-NN in ${ref.ms} ms (${ref.filter_rows} rows in the filter category)`);
    for (const p of withKnn) {
      for (const op of ['exact_knn', 'filtered_knn']) {
        if (!p.ops[op]) continue;
        const c = checkKnn(op, p.peer, p.ops[op].answers, ref, docs.slugs, slugIndex, docs.categories, String(meta.filter_category ?? ''));
        results.checks[`${p.peer} ${op} vs reference`] = c;
        problems.push(...c.problems);
      }
    }
  }
  const withFts = Object.values(results.peers).filter((p) => p.ok && p.ops.fts_bm25);
  for (let i = 0; i < withFts.length; i++) {
    for (let j = i + 1; j < withFts.length; j++) {
      results.checks[`fts_bm25 ${withFts[i].peer} vs ${withFts[j].peer}`] = overlapAtK(withFts[i].ops.fts_bm25.answers, withFts[j].ops.fts_bm25.answers);
    }
  }
  results.ok = problems.length === 0;
  results.finished = new Date().toISOString();
  fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
  fs.writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  console.log(`search peers: ${meta.n} docs, dim ${meta.dim}, k ${meta.k}, ${meta.vector_queries.length} vector and ` +
    `${meta.text_queries.length} text queries; ${opts.reps} reps, medians; ann ${ANN.type} ef ${opts.ef}${opts.refine ? ` refine ${opts.refine}` : ''}`);
  console.log(printTable(results));
  if (problems.length) {
    console.log(`search peers: FAILED or WRONG:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`search peers: ok; results in ${opts.out}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
