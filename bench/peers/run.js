#!/usr/bin/env node
// Side-by-side peer benchmark: bulk load + eight graph queries on Kuzu, DuckDB and SQLite, all
// in-process, in memory (or, with --disk DIR, in database files under DIR, each load ending
// durable: CHECKPOINT, or SQLite's synchronous COMMIT), on the data of bench/peers/gen.js. Every peer runs in its own child
// process (clean RSS, one crash does not take the others down). The answers of all peers must
// agree with each other and with a plain-JavaScript reference computed from the CSVs; they are
// written to results.json (key "answers") so that Omnigraph's own query benchmark can assert
// that it returns the same numbers.
//   node bench/peers/run.js --data DIR [--reps 5] [--out results.json] [--peers kuzu,duckdb,sqlite]
//                           [--source p42] [--threads N] [--no-reference] [--disk DIR]
// Timing: each query is run once to warm up, then --reps times; the median wall time (ms) from
// submitting the query text to having every result row in JavaScript is reported. Load time is
// the bulk load of persons.csv + knows.csv including the peer's indexes (see LOAD below).
// Exit status: 0 when every peer ran and all answers agree, 1 otherwise (results.json is
// written either way).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

// ---------------------------------------------------------------------------------------------
// The queries. SRC is replaced by the source key (a string literal, default 'p42').
//   q_key         name of the person with key SRC
//   q_1hop        number of distinct c with SRC->c
//   q_2hop        number of distinct c with SRC->b->c (c may be SRC)
//   q_3hop        number of distinct d with SRC->b->c->d (d may be SRC)
//   q_agg1hop     over all Knows edges a->b: count(*) and avg(b.age)
//   q_global2hop  number of 2-hop paths a->b->c over the whole graph (paths, not distinct ends)
//   q_reach13     number of distinct nodes at BFS distance 1..3 from SRC (SRC itself excluded)
//   q_filter      number of Person with age > 80 and city = 'city7'
// Walks are not restricted (no node/edge uniqueness); the generator makes no self-loops and no
// duplicate edges.
const LEVELS_SQL = `l1 AS (SELECT DISTINCT dst AS n FROM knows WHERE src = SRC),
  l2 AS (SELECT DISTINCT dst AS n FROM knows WHERE src IN (SELECT n FROM l1)),
  l3 AS (SELECT DISTINCT dst AS n FROM knows WHERE src IN (SELECT n FROM l2))`;
const QUERIES = [
  {
    name: 'q_key',
    cypher: `MATCH (p:Person) WHERE p.pid = SRC RETURN p.name`,
    sql: `SELECT name FROM person WHERE pid = SRC`,
  },
  {
    name: 'q_1hop',
    cypher: `MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.pid = SRC RETURN count(DISTINCT b)`,
    sql: `SELECT count(DISTINCT dst) FROM knows WHERE src = SRC`,
  },
  {
    name: 'q_2hop',
    cypher: `MATCH (a:Person)-[:Knows]->(:Person)-[:Knows]->(c:Person) WHERE a.pid = SRC RETURN count(DISTINCT c)`,
    sql: `SELECT count(DISTINCT k2.dst) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst WHERE k1.src = SRC`,
  },
  {
    name: 'q_3hop',
    cypher: `MATCH (a:Person)-[:Knows]->(:Person)-[:Knows]->(:Person)-[:Knows]->(d:Person) WHERE a.pid = SRC RETURN count(DISTINCT d)`,
    sql: `SELECT count(DISTINCT k3.dst) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst JOIN knows k3 ON k3.src = k2.dst WHERE k1.src = SRC`,
  },
  {
    name: 'q_agg1hop',
    cypher: `MATCH (:Person)-[:Knows]->(b:Person) RETURN count(*) AS n, avg(b.age) AS avg_age`,
    sql: `SELECT count(*) AS n, avg(p.age) AS avg_age FROM knows k JOIN person p ON p.pid = k.dst`,
  },
  {
    name: 'q_global2hop',
    cypher: `MATCH (:Person)-[:Knows]->(:Person)-[:Knows]->(:Person) RETURN count(*)`,
    sql: `SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst`,
  },
  {
    name: 'q_reach13',
    cypher: `MATCH (a:Person)-[:Knows*1..3]->(b:Person) WHERE a.pid = SRC AND b.pid <> SRC RETURN count(DISTINCT b)`,
    sql: `WITH ${LEVELS_SQL}
  SELECT count(*) FROM (SELECT n FROM l1 UNION SELECT n FROM l2 UNION SELECT n FROM l3) AS r WHERE n <> SRC`,
  },
  {
    name: 'q_filter',
    cypher: `MATCH (p:Person) WHERE p.age > 80 AND p.city = 'city7' RETURN count(*)`,
    sql: `SELECT count(*) FROM person WHERE age > 80 AND city = 'city7'`,
  },
];

// Turns the first result row into the recorded answer.
function toAnswer(name, row) {
  if (name === 'q_key') return row === undefined ? null : String(row[0]);
  if (row === undefined) throw new Error(`${name}: no result row`);
  if (name === 'q_agg1hop') return { count: Number(row[0]), avg: row[1] === null ? null : Number(row[1]) };
  return Number(row[0]);
}

function sameAnswer(a, b) {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    if (a.count !== b.count) return false;
    if (a.avg === null || b.avg === null) return a.avg === b.avg;
    return Math.abs(a.avg - b.avg) <= 1e-9 * Math.max(1, Math.abs(a.avg));
  }
  return a === b;
}

// ---------------------------------------------------------------------------------------------
function parseArgs(argv) {
  const a = { data: null, reps: 5, out: null, peers: ['kuzu', 'duckdb', 'sqlite'], source: 'p42',
    threads: 0, reference: true, worker: null, resultFile: null, disk: null };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    if (k === '--data') a.data = v, i++;
    else if (k === '--reps') a.reps = Number(v), i++;
    else if (k === '--out') a.out = v, i++;
    else if (k === '--peers') a.peers = v.split(',').filter(Boolean), i++;
    else if (k === '--source') a.source = v, i++;
    else if (k === '--threads') a.threads = Number(v), i++;
    else if (k === '--disk') a.disk = path.resolve(v), i++;
    else if (k === '--no-reference') a.reference = false;
    else if (k === '--worker') a.worker = v, i++;
    else if (k === '--result-file') a.resultFile = v, i++;
    else if (k === '-h' || k === '--help') {
      console.log('usage: run.js --data DIR [--reps 5] [--out results.json] [--peers kuzu,duckdb,sqlite] ' +
        '[--source p42] [--threads N] [--no-reference] [--disk DIR]');
      process.exit(0);
    } else {
      console.error(`run.js: unknown argument ${k}`);
      process.exit(2);
    }
  }
  if (!a.data) { console.error('run.js: --data DIR is required'); process.exit(2); }
  a.data = path.resolve(a.data);
  if (!(Number.isInteger(a.reps) && a.reps >= 1)) { console.error('run.js: --reps must be >= 1'); process.exit(2); }
  if (!/^[A-Za-z0-9_.-]+$/.test(a.source)) { console.error('run.js: --source must be a plain key'); process.exit(2); }
  for (const p of a.peers) {
    if (!PEERS[p]) { console.error(`run.js: unknown peer ${p} (kuzu, duckdb, sqlite)`); process.exit(2); }
  }
  return a;
}

// A database path under `dir` that does not exist yet (each run starts from an empty database).
function freshDbPath(dir, name) {
  fs.mkdirSync(dir, { recursive: true });
  const p = path.join(dir, `${name}-${process.pid}.db`);
  RemoveDb(p);
  process.on('exit', () => RemoveDb(p));  // the worker's database goes with it
  return p;
}
function RemoveDb(p) {
  for (const f of [p, `${p}.wal`, `${p}-journal`]) fs.rmSync(f, { recursive: true, force: true });
}

function nowMs() { return Number(process.hrtime.bigint()) / 1e6; }
function median(xs) {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function round(x, d = 3) { const f = 10 ** d; return Math.round(x * f) / f; }
function mb(bytes) { return round(bytes / (1 << 20), 1); }
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

// Reads a CSV file line by line (no quoting: gen.js writes none), skipping the header.
function forEachCsvLine(file, fn) {
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  let carry = '';
  let header = true;
  for (;;) {
    const n = fs.readSync(fd, buf, 0, buf.length, null);
    if (n === 0) break;
    const text = carry + buf.toString('utf8', 0, n);
    const lines = text.split('\n');
    carry = lines.pop();
    for (const line of lines) {
      if (header) { header = false; continue; }
      if (line.length) fn(line);
    }
  }
  if (carry.length && !header) fn(carry);
  fs.closeSync(fd);
}

// ---------------------------------------------------------------------------------------------
// Peers. Each: open(), load(dir) -> {steps: {name: ms}}, run(text) -> first row as an array,
// version(), close(). LOAD:
//   kuzu:   CREATE NODE/REL TABLE, COPY Person FROM persons.csv, COPY Knows FROM knows.csv
//           (Kuzu builds its primary-key hash index and CSR adjacency during COPY).
//   duckdb: CREATE TABLE person (pid PRIMARY KEY) + knows, COPY ... FROM each CSV.
//   sqlite: one transaction of prepared INSERTs, then indexes person(pid) UNIQUE, knows(src),
//           knows(dst), then ANALYZE.
const PEERS = {
  kuzu: {
    query: 'cypher',
    async open(opts) {
      const kuzu = require('kuzu');
      this.kuzu = kuzu;
      this.disk = !!opts.disk;
      this.db = new kuzu.Database(opts.disk ? freshDbPath(opts.disk, 'kuzu') : ':memory:');
      this.conn = opts.threads ? new kuzu.Connection(this.db, opts.threads) : new kuzu.Connection(this.db);
    },
    async exec(text) {
      const r = await this.conn.query(text);
      const results = Array.isArray(r) ? r : [r];
      let rows = [];
      for (const q of results) rows = await q.getAll();
      for (const q of results) if (q.close) q.close();
      return rows.map((o) => Object.values(o));
    },
    async load(dir) {
      const steps = {};
      let t = nowMs();
      await this.exec('CREATE NODE TABLE Person(pid STRING, name STRING, age INT64, city STRING, PRIMARY KEY (pid))');
      await this.exec('CREATE REL TABLE Knows(FROM Person TO Person, since INT64)');
      steps.schema = nowMs() - t;
      t = nowMs();
      await this.exec(`COPY Person FROM '${path.join(dir, 'persons.csv')}' (HEADER=true)`);
      steps.persons = nowMs() - t;
      t = nowMs();
      await this.exec(`COPY Knows FROM '${path.join(dir, 'knows.csv')}' (HEADER=true)`);
      steps.knows = nowMs() - t;
      if (this.disk) {  // on disk: the load ends durable, as ours does
        t = nowMs();
        await this.exec('CHECKPOINT');
        steps.durable = nowMs() - t;
      }
      return steps;
    },
    async run(text) { return (await this.exec(text))[0]; },
    async version() {
      const t = (await this.exec("CALL current_setting('threads') RETURN *"))[0];
      return { kuzu: this.kuzu.VERSION, threads: Number(t[0]), package: `kuzu@${pkgVersion('kuzu')}` };
    },
    async close() { this.conn.close && await this.conn.close(); this.db.close && await this.db.close(); },
  },

  duckdb: {
    query: 'sql',
    async open(opts) {
      const { DuckDBInstance } = require('@duckdb/node-api');
      const options = opts.threads ? { threads: String(opts.threads) } : {};
      this.disk = !!opts.disk;
      this.instance = await DuckDBInstance.create(opts.disk ? freshDbPath(opts.disk, 'duckdb') : ':memory:', options);
      this.conn = await this.instance.connect();
    },
    async exec(text) { return (await this.conn.runAndReadAll(text)).getRows(); },
    async load(dir) {
      const steps = {};
      let t = nowMs();
      await this.exec('CREATE TABLE person (pid VARCHAR PRIMARY KEY, name VARCHAR, age BIGINT, city VARCHAR)');
      await this.exec('CREATE TABLE knows (src VARCHAR NOT NULL, dst VARCHAR NOT NULL, since BIGINT)');
      steps.schema = nowMs() - t;
      t = nowMs();
      await this.exec(`COPY person FROM '${path.join(dir, 'persons.csv')}' (HEADER true)`);
      steps.persons = nowMs() - t;
      t = nowMs();
      await this.exec(`COPY knows FROM '${path.join(dir, 'knows.csv')}' (HEADER true)`);
      steps.knows = nowMs() - t;
      if (this.disk) {  // on disk: the load ends durable, as ours does
        t = nowMs();
        await this.exec('CHECKPOINT');
        steps.durable = nowMs() - t;
      }
      return steps;
    },
    async run(text) { return (await this.exec(text))[0]; },
    async version() {
      const v = (await this.exec('SELECT version(), current_setting(\'threads\')'))[0];
      return { duckdb: String(v[0]), threads: Number(v[1]), package: `@duckdb/node-api@${pkgVersion('@duckdb/node-api')}` };
    },
    async close() { this.conn.closeSync(); this.instance.closeSync(); },
  },

  sqlite: {
    query: 'sql',
    async open(opts) {
      const Database = require('better-sqlite3');
      // On disk: the default rollback journal with synchronous FULL, so COMMIT is durable.
      this.db = new Database(opts.disk ? freshDbPath(opts.disk, 'sqlite') : ':memory:');
      if (!opts.disk) {
        this.db.pragma('journal_mode = OFF');
        this.db.pragma('synchronous = OFF');
      }
      this.db.pragma('temp_store = MEMORY');
    },
    async load(dir) {
      const db = this.db;
      const steps = {};
      let t = nowMs();
      db.exec('CREATE TABLE person (pid TEXT NOT NULL, name TEXT, age INTEGER, city TEXT)');
      db.exec('CREATE TABLE knows (src TEXT NOT NULL, dst TEXT NOT NULL, since INTEGER)');
      steps.schema = nowMs() - t;
      const insP = db.prepare('INSERT INTO person VALUES (?, ?, ?, ?)');
      const insK = db.prepare('INSERT INTO knows VALUES (?, ?, ?)');
      t = nowMs();
      db.exec('BEGIN');
      forEachCsvLine(path.join(dir, 'persons.csv'), (line) => {
        const f = line.split(',');
        insP.run(f[0], f[1], Number(f[2]), f[3]);
      });
      steps.persons = nowMs() - t;
      t = nowMs();
      forEachCsvLine(path.join(dir, 'knows.csv'), (line) => {
        const f = line.split(',');
        insK.run(f[0], f[1], Number(f[2]));
      });
      db.exec('COMMIT');
      steps.knows = nowMs() - t;
      t = nowMs();
      db.exec('CREATE UNIQUE INDEX person_pid ON person(pid)');
      db.exec('CREATE INDEX knows_src ON knows(src)');
      db.exec('CREATE INDEX knows_dst ON knows(dst)');
      db.exec('ANALYZE');
      steps.indexes = nowMs() - t;
      return steps;
    },
    // Prepared per run, like the other peers parse their query text per run.
    async run(text) { return this.db.prepare(text).raw(true).get(); },
    async version() {
      const v = this.db.prepare('SELECT sqlite_version()').raw(true).get();
      return { sqlite: v[0], threads: 1, package: `better-sqlite3@${pkgVersion('better-sqlite3')}` };
    },
    async close() { this.db.close(); },
  },
};

async function worker(opts) {
  const peer = PEERS[opts.worker];
  const res = { peer: opts.worker, ok: false };
  const rssStart = process.memoryUsage().rss;
  await peer.open(opts);
  const steps = await peer.load(opts.data);
  res.load_ms = Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, round(v, 1)]));
  res.load_s = round((steps.persons + steps.knows + (steps.indexes || 0) + (steps.durable || 0)) / 1000, 3);
  res.rss_before_load_mb = mb(rssStart);
  res.rss_after_load_mb = mb(process.memoryUsage().rss);
  res.version = await peer.version();
  const lit = `'${opts.source}'`;
  res.queries = {};
  res.answers = {};
  for (const q of QUERIES) {
    const text = q[peer.query].replaceAll('SRC', lit);
    const warm = await peer.run(text);
    res.answers[q.name] = toAnswer(q.name, warm);
    const runs = [];
    for (let i = 0; i < opts.reps; i++) {
      const t = nowMs();
      const row = await peer.run(text);
      runs.push(nowMs() - t);
      if (!sameAnswer(toAnswer(q.name, row), res.answers[q.name])) throw new Error(`${q.name}: answer changed between runs`);
    }
    res.queries[q.name] = { median_ms: round(median(runs)), min_ms: round(Math.min(...runs)), runs_ms: runs.map((x) => round(x)) };
  }
  res.peak_rss_mb = peakRss() === null ? null : mb(peakRss());
  await peer.close();
  res.ok = true;
  return res;
}

// ---------------------------------------------------------------------------------------------
// Reference answers in plain JavaScript from the CSVs (CSR adjacency over person indexes).
function reference(dir, source) {
  const t0 = nowMs();
  const index = new Map();
  const ages = [];
  const names = [];
  let filter = 0;
  forEachCsvLine(path.join(dir, 'persons.csv'), (line) => {
    const f = line.split(',');
    index.set(f[0], ages.length);
    names.push(f[1]);
    const age = Number(f[2]);
    ages.push(age);
    if (age > 80 && f[3] === 'city7') filter++;
  });
  const n = ages.length;
  let srcs = new Int32Array(1 << 20);
  let dsts = new Int32Array(1 << 20);
  let m = 0;
  forEachCsvLine(path.join(dir, 'knows.csv'), (line) => {
    const c1 = line.indexOf(',');
    const c2 = line.indexOf(',', c1 + 1);
    const s = index.get(line.slice(0, c1));
    const d = index.get(line.slice(c1 + 1, c2));
    if (s === undefined || d === undefined) throw new Error(`reference: dangling edge ${line}`);
    if (m === srcs.length) {
      const s2 = new Int32Array(m * 2); s2.set(srcs); srcs = s2;
      const d2 = new Int32Array(m * 2); d2.set(dsts); dsts = d2;
    }
    srcs[m] = s; dsts[m] = d; m++;
  });
  const off = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) off[srcs[e] + 1]++;
  for (let i = 0; i < n; i++) off[i + 1] += off[i];
  const adj = new Int32Array(m);
  const pos = off.slice(0, n);
  const indeg = new Float64Array(n);
  let ageSum = 0;
  for (let e = 0; e < m; e++) {
    adj[pos[srcs[e]]++] = dsts[e];
    indeg[dsts[e]]++;
    ageSum += ages[dsts[e]];
  }
  let global2 = 0;
  for (let b = 0; b < n; b++) global2 += indeg[b] * (off[b + 1] - off[b]);
  const next = (set) => {
    const out = new Set();
    for (const v of set) for (let i = off[v]; i < off[v + 1]; i++) out.add(adj[i]);
    return out;
  };
  const s = index.get(source);
  const ans = {};
  ans.q_key = s === undefined ? null : names[s];
  const l1 = s === undefined ? new Set() : next([s]);
  const l2 = next(l1);
  const l3 = next(l2);
  ans.q_1hop = l1.size;
  ans.q_2hop = l2.size;
  ans.q_3hop = l3.size;
  ans.q_agg1hop = { count: m, avg: m ? ageSum / m : null };
  ans.q_global2hop = global2;
  const reach = new Set([...l1, ...l2, ...l3]);
  if (s !== undefined) reach.delete(s);
  ans.q_reach13 = reach.size;
  ans.q_filter = filter;
  return { answers: ans, ms: round(nowMs() - t0, 1), persons: n, edges: m, agg1hop_age_sum: ageSum };
}

// ---------------------------------------------------------------------------------------------
function printTable(results) {
  const peers = results.peers.filter((p) => p.ok);
  const cols = peers.map((p) => p.peer);
  const w = 13;
  const pad = (s, n = w) => String(s).padStart(n);
  const lines = [];
  lines.push(`${'ms (median)'.padEnd(14)}${cols.map((c) => pad(c)).join('')}   answer`);
  lines.push(`${'load (s)'.padEnd(14)}${peers.map((p) => pad(p.load_s.toFixed(2))).join('')}`);
  lines.push(`${'rss load (MB)'.padEnd(14)}${peers.map((p) => pad(p.rss_after_load_mb)).join('')}`);
  lines.push(`${'peak rss (MB)'.padEnd(14)}${peers.map((p) => pad(p.peak_rss_mb)).join('')}`);
  for (const q of QUERIES) {
    const a = results.answers ? results.answers[q.name] : undefined;
    const as = a && typeof a === 'object' ? `n=${a.count} avg=${a.avg.toFixed(4)}` : JSON.stringify(a);
    lines.push(`${q.name.padEnd(14)}${peers.map((p) => pad(p.queries[q.name].median_ms.toFixed(2))).join('')}   ${as}`);
  }
  for (const p of results.peers.filter((x) => !x.ok)) lines.push(`${p.peer}: FAILED: ${p.error}`);
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

  let meta = null;
  try { meta = JSON.parse(fs.readFileSync(path.join(opts.data, 'meta.json'), 'utf8')); } catch (_) { /* optional */ }
  const results = {
    benchmark: 'bench/peers/run.js',
    started: new Date().toISOString(),
    data: { dir: opts.data, meta },
    source: opts.source,
    reps: opts.reps,
    timing: 'median wall ms of --reps warm runs after one warm-up run; query text in, all rows in JS',
    machine: { nproc: os.cpus().length, cpu: os.cpus()[0] && os.cpus()[0].model, mem_gb: round(os.totalmem() / 2 ** 30, 1),
      loadavg_at_start: os.loadavg().map((x) => round(x, 2)), platform: `${os.platform()} ${os.release()}` },
    node: process.version,
    queries: Object.fromEntries(QUERIES.map((q) => [q.name, { cypher: q.cypher.replaceAll('SRC', `'${opts.source}'`),
      sql: q.sql.replaceAll('SRC', `'${opts.source}'`) }])),
    answers: null,
    reference: null,
    peers: [],
    agree: false,
  };
  const problems = [];
  if (opts.reference) {
    const ref = reference(opts.data, opts.source);
    results.reference = { ms: ref.ms, persons: ref.persons, edges: ref.edges, answers: ref.answers, agg1hop_age_sum: ref.agg1hop_age_sum };
    results.answers = ref.answers;
    console.error(`run.js: reference answers in ${ref.ms} ms (${ref.persons} persons, ${ref.edges} edges)`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'og-peers-'));
  for (const name of opts.peers) {
    const file = path.join(tmp, `${name}.json`);
    const args = [__filename, '--worker', name, '--result-file', file, '--data', opts.data, '--reps', String(opts.reps),
      '--source', opts.source, '--peers', name];
    if (opts.threads) args.push('--threads', String(opts.threads));
    if (opts.disk) args.push('--disk', opts.disk);
    console.error(`run.js: ${name} ...`);
    const t = nowMs();
    const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit'], maxBuffer: 1 << 20 });
    let res;
    try { res = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (_) {
      res = { peer: name, ok: false, error: `worker exited with status ${r.status} signal ${r.signal}` };
    }
    res.wall_s = round((nowMs() - t) / 1000, 1);
    results.peers.push(res);
    if (!res.ok) { problems.push(`${name} failed: ${res.error}`); console.error(`run.js: ${name} FAILED: ${res.error}`); continue; }
    console.error(`run.js: ${name} done in ${res.wall_s} s (load ${res.load_s} s)`);
    if (results.answers === null) results.answers = res.answers;
    for (const q of QUERIES) {
      if (!sameAnswer(res.answers[q.name], results.answers[q.name])) {
        problems.push(`${name} ${q.name}: ${JSON.stringify(res.answers[q.name])} != expected ${JSON.stringify(results.answers[q.name])}`);
      }
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  results.agree = problems.length === 0;
  results.problems = problems;
  results.finished = new Date().toISOString();
  if (opts.out) {
    fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true });
    fs.writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  }
  const m = meta ? `${meta.persons} persons, ${meta.edges} edges` : opts.data;
  console.log(`peers: ${m}; ${opts.reps} reps, medians; threads: ` +
    results.peers.filter((p) => p.ok).map((p) => `${p.peer} ${p.version.threads ?? (opts.threads || 'default')}`).join(', '));
  console.log(printTable(results));
  if (problems.length) {
    console.log(`peers: DISAGREE or FAILED:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`peers: all ${results.peers.length} peers agree${opts.reference ? ' with the reference' : ''}` +
    (opts.out ? `; results in ${opts.out}` : ''));
}

main().catch((e) => { console.error(e); process.exit(1); });
