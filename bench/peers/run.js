#!/usr/bin/env node
// Side-by-side peer benchmark: bulk load + twenty-two graph queries on Kuzu, DuckDB and SQLite, all
// in-process, in memory (or, with --disk DIR, in database files under DIR, each load ending
// durable: CHECKPOINT, or SQLite's synchronous COMMIT), on the data of bench/peers/gen.js. Every peer runs in its own child
// process (clean RSS, one crash does not take the others down). The answers of all peers must
// agree with each other and with a plain-JavaScript reference computed from the CSVs; they are
// written to results.json (key "answers") so that Omnigraph's own query benchmark can assert
// that it returns the same numbers.
//   node bench/peers/run.js --data DIR [--reps 5] [--out results.json] [--peers kuzu,duckdb,sqlite]
//                           [--source p42] [--target p7] [--threads N] [--no-reference] [--disk DIR]
//                           [--only q_name,...]
// The queries (listed below, at QUERIES) are the same on both shapes of gen.js (skewed, uniform).
// Timing: each query is run once to warm up, then --reps times; the median wall time (ms) from
// submitting the query text to having every result row in JavaScript is reported (q_write_read:
// its write and its read, back to back). Load time is the bulk load of persons.csv + knows.csv
// including the peer's indexes (see LOAD below).
// Exit status: 0 when every peer ran and all answers agree, 1 otherwise (results.json is
// written either way).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

// ---------------------------------------------------------------------------------------------
// The queries. SRC is replaced by the source key (a string literal, default 'p42'), DST by the
// target key (--target, default 'p7'), TGT (q_write_read only) by each repetition's new friend.
//   q_key            name of the person with key SRC
//   q_1hop           number of distinct c with SRC->c
//   q_2hop           number of distinct c with SRC->b->c (c may be SRC)
//   q_3hop           number of distinct d with SRC->b->c->d (d may be SRC)
//   q_agg1hop        over all Knows edges a->b: count(*) and avg(b.age) (parallel edges counted)
//   q_global2hop     number of 2-hop paths a->b->c over the whole graph (edge paths, not distinct
//                    ends: parallel edges give distinct paths)
//   q_reach13        number of distinct nodes at BFS distance 1..3 from SRC (SRC itself excluded)
//   q_filter         number of Person with age > 80 and city = 'city7'
//   q_top_outdeg     the 5 persons with the most distinct out-neighbours (parallel edges collapse,
//                    a self-loop makes the person its own out-neighbour), ties by pid ascending:
//                    [[pid, n], ...]
//   q_top_indeg_age  the 5 persons with the most distinct in-neighbours older than 50 (a filter on
//                    the edge's source), ties by pid ascending: [[pid, n], ...]
//   q_city_count     persons per city (a String grouping key), the 5 largest, ties by city
//                    ascending: [[city, n], ...]
//   q_city_age       persons per (city, age), the 5 largest, ties by city then age ascending:
//                    [[city, age, n], ...]
//   q_order_prop     the pids of the 10 oldest persons, ties by pid ascending (order by a property
//                    with a limit, no aggregation): [pid, ...]
//   q_antijoin       number of persons without an out-edge (a self-loop is an out-edge)
//   q_reach_filter   number of distinct persons at BFS distance 1..2 from SRC with age > 50 (SRC
//                    itself excluded, even when a self-loop or a cycle leads back to it)
//   q_edge_filter    number of Knows edges with since >= 2020 (parallel edges counted)
//   q_edge_filter_group  Knows edges with since = 2024 per city of their destination, the 5
//                    largest, ties by city ascending: [[city, n], ...] (parallel edges counted)
//   q_edge_filter_dst number of Knows edges with since = 2024 whose destination has age > 85
//                    (parallel edges counted)
//   q_edge_between   number of Knows edges from a person of city 'city7' to a person with age > 80
//                    (parallel edges counted)
//   q_2hop_paths_key number of 2-hop edge paths SRC->b->c (not distinct ends; parallel edges give
//                    distinct paths; a self-loop b->b may be both hops)
//   q_shortest       the number of hops of a shortest directed path SRC -> DST of at most 30 hops
//                    (null if there is none; keep DST reachable: p7 is from p42 at 20k/200k on
//                    both shapes, and an unreachable DST makes SQLite's search visit 30 levels)
//   q_write_read     a one-row write then a read, timed together: insert the edge SRC -> TGT
//                    (since 2024), then q_1hop. Answer: the 1-hop count after the insert, i.e.
//                    q_1hop + 1. TGT is fresh in every run (the warm-up included): the persons p0,
//                    p1, ... in index order, skipping SRC and the persons SRC already knows (each
//                    peer lists those itself, untimed, first). After each run the inserted edge is
//                    deleted again, untimed, so the graph (and the answer) is the same in every run
//                    and for every query; it runs last anyway.
// Walks are not restricted (no node/edge uniqueness: Kuzu's fixed-length patterns bind one edge
// twice, e.g. a self-loop for both hops, as the SQL joins do). The skewed shape of gen.js has no
// self-loops and no parallel edges; the uniform shape has both, and the queries above say how each
// treats them. Self-loops and the BFS distance of docs/language.md ("Hop bounds": the source counts
// as visited, a self-loop on a frontier node produces that node): a self-loop on SRC would produce
// SRC at distance 1, which is why the reach queries exclude SRC explicitly (the peers' walks reach
// SRC through any cycle).
// A query's text is q.cypher (Kuzu) and q.sql (DuckDB and SQLite) unless q.duckdb / q.sqlite
// override it for one peer (q_shortest: neither recursion that stops early is portable).
const LEVELS_SQL = `l1 AS (SELECT DISTINCT dst AS n FROM knows WHERE src = SRC),
  l2 AS (SELECT DISTINCT dst AS n FROM knows WHERE src IN (SELECT n FROM l1)),
  l3 AS (SELECT DISTINCT dst AS n FROM knows WHERE src IN (SELECT n FROM l2))`;
const QUERIES = [
  {
    name: 'q_key',
    answer: 'string',
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
    answer: 'countavg',
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
  {
    name: 'q_top_outdeg',
    answer: 'rows',
    cypher: `MATCH (a:Person)-[:Knows]->(b:Person) RETURN a.pid AS pid, count(DISTINCT b) AS n ORDER BY n DESC, pid LIMIT 5`,
    sql: `SELECT src, count(DISTINCT dst) AS n FROM knows GROUP BY src ORDER BY n DESC, src LIMIT 5`,
  },
  {
    name: 'q_top_indeg_age',
    answer: 'rows',
    cypher: `MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.age > 50 RETURN b.pid AS pid, count(DISTINCT a) AS n ORDER BY n DESC, pid LIMIT 5`,
    sql: `SELECT k.dst, count(DISTINCT k.src) AS n FROM knows k JOIN person a ON a.pid = k.src WHERE a.age > 50
  GROUP BY k.dst ORDER BY n DESC, k.dst LIMIT 5`,
  },
  {
    name: 'q_city_count',
    answer: 'rows',
    cypher: `MATCH (p:Person) RETURN p.city AS city, count(*) AS n ORDER BY n DESC, city LIMIT 5`,
    sql: `SELECT city, count(*) AS n FROM person GROUP BY city ORDER BY n DESC, city LIMIT 5`,
  },
  {
    name: 'q_city_age',
    answer: 'rows',
    cypher: `MATCH (p:Person) RETURN p.city AS city, p.age AS age, count(*) AS n ORDER BY n DESC, city, age LIMIT 5`,
    sql: `SELECT city, age, count(*) AS n FROM person GROUP BY city, age ORDER BY n DESC, city, age LIMIT 5`,
  },
  {
    name: 'q_order_prop',
    answer: 'column',
    cypher: `MATCH (p:Person) RETURN p.pid ORDER BY p.age DESC, p.pid LIMIT 10`,
    sql: `SELECT pid FROM person ORDER BY age DESC, pid LIMIT 10`,
  },
  {
    name: 'q_antijoin',
    cypher: `MATCH (p:Person) WHERE NOT EXISTS { MATCH (p)-[:Knows]->(:Person) } RETURN count(*)`,
    sql: `SELECT count(*) FROM person p WHERE NOT EXISTS (SELECT 1 FROM knows k WHERE k.src = p.pid)`,
  },
  {
    name: 'q_reach_filter',
    cypher: `MATCH (a:Person)-[:Knows*1..2]->(b:Person) WHERE a.pid = SRC AND b.pid <> SRC AND b.age > 50 RETURN count(DISTINCT b)`,
    sql: `WITH l1 AS (SELECT DISTINCT dst AS n FROM knows WHERE src = SRC),
  l2 AS (SELECT DISTINCT dst AS n FROM knows WHERE src IN (SELECT n FROM l1))
  SELECT count(*) FROM (SELECT n FROM l1 UNION SELECT n FROM l2) AS r JOIN person p ON p.pid = r.n
  WHERE r.n <> SRC AND p.age > 50`,
  },
  {
    name: 'q_edge_filter',
    cypher: `MATCH (:Person)-[k:Knows]->(:Person) WHERE k.since >= 2020 RETURN count(*)`,
    sql: `SELECT count(*) FROM knows WHERE since >= 2020`,
  },
  {
    name: 'q_edge_filter_group',
    answer: 'rows',
    cypher: `MATCH (:Person)-[k:Knows]->(b:Person) WHERE k.since = 2024 RETURN b.city AS city, count(*) AS n ORDER BY n DESC, city LIMIT 5`,
    sql: `SELECT b.city, count(*) AS n FROM knows k JOIN person b ON b.pid = k.dst WHERE k.since = 2024
  GROUP BY b.city ORDER BY n DESC, b.city LIMIT 5`,
  },
  {
    name: 'q_edge_filter_dst',
    cypher: `MATCH (:Person)-[k:Knows]->(b:Person) WHERE k.since = 2024 AND b.age > 85 RETURN count(*)`,
    sql: `SELECT count(*) FROM knows k JOIN person b ON b.pid = k.dst WHERE k.since = 2024 AND b.age > 85`,
  },
  {
    name: 'q_edge_between',
    cypher: `MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.city = 'city7' AND b.age > 80 RETURN count(*)`,
    sql: `SELECT count(*) FROM knows k JOIN person a ON a.pid = k.src JOIN person b ON b.pid = k.dst
  WHERE a.city = 'city7' AND b.age > 80`,
  },
  {
    name: 'q_2hop_paths_key',
    cypher: `MATCH (a:Person)-[:Knows]->(:Person)-[:Knows]->(:Person) WHERE a.pid = SRC RETURN count(*)`,
    sql: `SELECT count(*) FROM knows k1 JOIN knows k2 ON k2.src = k1.dst WHERE k1.src = SRC`,
  },
  {
    // Kuzu: its shortest-path recursion (at most 30 hops, Kuzu's default maximum depth); no row when
    // unreachable. DuckDB: a real BFS, USING KEY (n) keeps one row per node reached and
    // recurring.bfs is every node reached so far, so each node is expanded once. SQLite cannot
    // refer to the recursive table twice; its queue of (node, depth) rows, ordered by depth (ORDER
    // BY in the recursive CTE; UNION drops repeated pairs), is produced lazily, so LIMIT 1 stops
    // at the first row for DST, which has the least depth. Without a path that would be up to 30
    // levels of every node: keep DST reachable.
    name: 'q_shortest',
    answer: 'intOrNull',
    cypher: `MATCH p = (a:Person)-[:Knows* SHORTEST 1..30]->(b:Person) WHERE a.pid = SRC AND b.pid = DST RETURN length(p)`,
    duckdb: `WITH RECURSIVE bfs(n, d) USING KEY (n) AS (
    SELECT SRC, 0
    UNION
    SELECT k.dst, min(b.d) + 1 FROM bfs b JOIN knows k ON k.src = b.n
    WHERE b.d < 30 AND k.dst NOT IN (SELECT n FROM recurring.bfs) GROUP BY k.dst)
  SELECT min(d) FROM bfs WHERE n = DST`,
    sqlite: `WITH RECURSIVE r(n, d) AS (
    SELECT SRC, 0
    UNION
    SELECT k.dst, r.d + 1 FROM r JOIN knows k ON k.src = r.n WHERE r.d < 30 ORDER BY 2)
  SELECT min(d) FROM (SELECT d FROM r WHERE n = DST LIMIT 1)`,
  },
  {
    // Timed: `write` then the read (q_1hop). Untimed: `known` lists SRC's friends before the first
    // run (to pick TGTs), `undo` deletes the inserted edge after each run.
    name: 'q_write_read',
    cypher: `MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.pid = SRC RETURN count(DISTINCT b)`,
    sql: `SELECT count(DISTINCT dst) FROM knows WHERE src = SRC`,
    write: {
      cypher: `MATCH (a:Person), (b:Person) WHERE a.pid = SRC AND b.pid = TGT CREATE (a)-[:Knows {since: 2024}]->(b)`,
      sql: `INSERT INTO knows VALUES (SRC, TGT, 2024)`,
    },
    undo: {
      cypher: `MATCH (a:Person)-[k:Knows]->(b:Person) WHERE a.pid = SRC AND b.pid = TGT DELETE k`,
      sql: `DELETE FROM knows WHERE src = SRC AND dst = TGT`,
    },
    known: {
      cypher: `MATCH (a:Person)-[:Knows]->(b:Person) WHERE a.pid = SRC RETURN DISTINCT b.pid`,
      sql: `SELECT DISTINCT dst FROM knows WHERE src = SRC`,
    },
  },
];

// The text of query part `q` (a query, or its write/undo/known) for the peer `name`.
function textFor(q, name) { return q[name] ?? q[PEERS[name].query]; }

// A result value as recorded: numbers (DuckDB's BIGINT comes as a BigInt) as Number, strings
// as-is, null as null.
function plain(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint' || typeof v === 'number') return Number(v);
  return String(v);
}

// Turns the result rows into the recorded answer, by q.answer: 'int' (the default: the first
// column of the one row), 'string' (or null without a row), 'countavg', 'intOrNull' (null without
// a row), 'rows' (every row, a list of values) or 'column' (the first column of every row).
function toAnswer(q, rows) {
  const row = rows[0];
  switch (q.answer || 'int') {
    case 'string': return row === undefined || row[0] === null ? null : String(row[0]);
    case 'intOrNull': return row === undefined || row[0] === null ? null : Number(row[0]);
    case 'rows': return rows.map((r) => r.map(plain));
    case 'column': return rows.map((r) => plain(r[0]));
    default: break;
  }
  if (row === undefined) throw new Error(`${q.name}: no result row`);
  if (q.answer === 'countavg') return { count: Number(row[0]), avg: row[1] === null ? null : Number(row[1]) };
  return Number(row[0]);
}

function sameAnswer(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameAnswer(x, b[i]));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    if (a.count !== b.count) return false;
    if (a.avg === null || b.avg === null) return a.avg === b.avg;
    return Math.abs(a.avg - b.avg) <= 1e-9 * Math.max(1, Math.abs(a.avg));
  }
  return a === b;
}

// ---------------------------------------------------------------------------------------------
function parseArgs(argv) {
  const a = { data: null, reps: 5, out: null, peers: ['kuzu', 'duckdb', 'sqlite'], source: 'p42', target: 'p7',
    threads: 0, reference: true, worker: null, resultFile: null, disk: null, only: null };
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    if (k === '--data') a.data = v, i++;
    else if (k === '--reps') a.reps = Number(v), i++;
    else if (k === '--out') a.out = v, i++;
    else if (k === '--peers') a.peers = v.split(',').filter(Boolean), i++;
    else if (k === '--source') a.source = v, i++;
    else if (k === '--target') a.target = v, i++;
    else if (k === '--threads') a.threads = Number(v), i++;
    else if (k === '--disk') a.disk = path.resolve(v), i++;
    else if (k === '--only') a.only = String(v ?? '').split(',').filter(Boolean), i++;
    else if (k === '--no-reference') a.reference = false;
    else if (k === '--worker') a.worker = v, i++;
    else if (k === '--result-file') a.resultFile = v, i++;
    else if (k === '-h' || k === '--help') {
      console.log('usage: run.js --data DIR [--reps 5] [--out results.json] [--peers kuzu,duckdb,sqlite] ' +
        '[--source p42] [--target p7] [--threads N] [--no-reference] [--disk DIR] [--only q_name,...]');
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
  if (!/^[A-Za-z0-9_.-]+$/.test(a.target)) { console.error('run.js: --target must be a plain key'); process.exit(2); }
  if (a.target === a.source) { console.error('run.js: --target must differ from --source'); process.exit(2); }
  if (a.only && a.only.length === 0) { console.error('run.js: --only needs query names'); process.exit(2); }
  if (a.only) {  // run these queries only (in QUERIES' order)
    for (const name of a.only) {
      if (!QUERIES.some((q) => q.name === name)) { console.error(`run.js: unknown query ${name}`); process.exit(2); }
    }
    QUERIES.splice(0, QUERIES.length, ...QUERIES.filter((q) => a.only.includes(q.name)));
  }
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
// Peers. Each: open(), load(dir) -> {steps: {name: ms}}, run(text) -> every result row as an
// array, write(text) (a statement without rows), version(), close(). LOAD:
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
    async run(text) { return this.exec(text); },
    async write(text) { await this.exec(text); },
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
    async run(text) { return this.exec(text); },
    async write(text) { await this.conn.run(text); },
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
    async run(text) { return this.db.prepare(text).raw(true).all(); },
    async write(text) { this.db.prepare(text).run(); },
    async version() {
      const v = this.db.prepare('SELECT sqlite_version()').raw(true).get();
      return { sqlite: v[0], threads: 1, package: `better-sqlite3@${pkgVersion('better-sqlite3')}` };
    },
    async close() { this.db.close(); },
  },
};

// The query text with SRC, DST and TGT replaced by string literals.
function substitute(text, opts, tgt) {
  let t = text.replaceAll('SRC', `'${opts.source}'`).replaceAll('DST', `'${opts.target}'`);
  if (tgt !== undefined) t = t.replaceAll('TGT', `'${tgt}'`);
  return t;
}

// q_write_read's new friends of `source`: the first n of p0, p1, ... that are neither `source`
// nor in `known` (gen.js names persons p0..p(N-1)).
function freshTargets(source, known, n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    const p = `p${i}`;
    if (p !== source && !known.has(p)) out.push(p);
  }
  return out;
}

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
  res.queries = {};
  res.answers = {};
  for (const q of QUERIES) {
    const text = substitute(textFor(q, opts.worker), opts);
    let writeRead = null;
    if (q.write) {  // q_write_read: a fresh TGT per run (see QUERIES)
      const known = new Set((await peer.run(substitute(textFor(q.known, opts.worker), opts))).map((r) => String(r[0])));
      const targets = freshTargets(opts.source, known, opts.reps + 1);
      let next = 0;
      writeRead = async () => {
        const tgt = targets[next++];
        const insert = substitute(textFor(q.write, opts.worker), opts, tgt);
        const t = nowMs();
        await peer.write(insert);
        const rows = await peer.run(text);
        const ms = nowMs() - t;
        await peer.write(substitute(textFor(q.undo, opts.worker), opts, tgt));
        return { rows, ms };
      };
    }
    const warm = writeRead ? (await writeRead()).rows : await peer.run(text);
    res.answers[q.name] = toAnswer(q, warm);
    const runs = [];
    for (let i = 0; i < opts.reps; i++) {
      let rows;
      if (writeRead) {
        const r = await writeRead();
        rows = r.rows;
        runs.push(r.ms);
      } else {
        const t = nowMs();
        rows = await peer.run(text);
        runs.push(nowMs() - t);
      }
      if (!sameAnswer(toAnswer(q, rows), res.answers[q.name])) throw new Error(`${q.name}: answer changed between runs`);
    }
    res.queries[q.name] = { median_ms: round(median(runs)), min_ms: round(Math.min(...runs)), runs_ms: runs.map((x) => round(x)) };
  }
  res.peak_rss_mb = peakRss() === null ? null : mb(peakRss());
  await peer.close();
  res.ok = true;
  return res;
}

// ---------------------------------------------------------------------------------------------
// Reference answers in plain JavaScript from the CSVs (CSR adjacency over person indexes; the
// adjacency keeps parallel edges, `distinct` is the same without them).
function reference(dir, source, target) {
  const t0 = nowMs();
  const index = new Map();
  const pids = [];
  const ages = [];
  const names = [];
  const cities = [];
  let filter = 0;
  forEachCsvLine(path.join(dir, 'persons.csv'), (line) => {
    const f = line.split(',');
    index.set(f[0], ages.length);
    pids.push(f[0]);
    names.push(f[1]);
    const age = Number(f[2]);
    ages.push(age);
    cities.push(f[3]);
    if (age > 80 && f[3] === 'city7') filter++;
  });
  const n = ages.length;
  let srcs = new Int32Array(1 << 20);
  let dsts = new Int32Array(1 << 20);
  let m = 0;
  let since2020 = 0;
  let between = 0;
  const cityOf2024 = new Map();
  let dstOld2024 = 0;
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
    const since = Number(line.slice(c2 + 1));
    if (since >= 2020) since2020++;
    if (since === 2024) {
      cityOf2024.set(cities[d], (cityOf2024.get(cities[d]) || 0) + 1);
      if (ages[d] > 85) dstOld2024++;
    }
    if (cities[s] === 'city7' && ages[d] > 80) between++;
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
  // Distinct out-neighbours: each adjacency list sorted and de-duplicated.
  const doff = new Int32Array(n + 1);
  const dadj = new Int32Array(m);
  for (let a = 0, k = 0; a < n; a++) {
    const list = adj.slice(off[a], off[a + 1]).sort();
    for (let i = 0; i < list.length; i++) if (i === 0 || list[i] !== list[i - 1]) dadj[k++] = list[i];
    doff[a + 1] = k;
  }
  const next = (set) => {
    const out = new Set();
    for (const v of set) for (let i = off[v]; i < off[v + 1]; i++) out.add(adj[i]);
    return out;
  };
  const byPid = (x, y) => (pids[x] < pids[y] ? -1 : pids[x] > pids[y] ? 1 : 0);
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

  // q_top_outdeg: distinct out-neighbours per person.
  const outTop = new TopK(5, (x, y) => (doff[y + 1] - doff[y]) - (doff[x + 1] - doff[x]) || byPid(x, y));
  for (let a = 0; a < n; a++) if (doff[a + 1] > doff[a]) outTop.offer(a);
  ans.q_top_outdeg = outTop.items.map((a) => [pids[a], doff[a + 1] - doff[a]]);
  // q_top_indeg_age: distinct in-neighbours older than 50 per person.
  const inOld = new Int32Array(n);
  for (let a = 0; a < n; a++) if (ages[a] > 50) for (let i = doff[a]; i < doff[a + 1]; i++) inOld[dadj[i]]++;
  const inTop = new TopK(5, (x, y) => inOld[y] - inOld[x] || byPid(x, y));
  for (let b = 0; b < n; b++) if (inOld[b] > 0) inTop.offer(b);
  ans.q_top_indeg_age = inTop.items.map((b) => [pids[b], inOld[b]]);
  // q_city_count, q_city_age: groups by city, by (city, age).
  const cityN = new Map();
  const cityAgeN = new Map();
  for (let p = 0; p < n; p++) {
    cityN.set(cities[p], (cityN.get(cities[p]) || 0) + 1);
    const k = `${cities[p]},${ages[p]}`;
    cityAgeN.set(k, (cityAgeN.get(k) || 0) + 1);
  }
  const str = (x, y) => (x < y ? -1 : x > y ? 1 : 0);
  ans.q_city_count = [...cityN].map(([c, k]) => [c, k]).sort((x, y) => y[1] - x[1] || str(x[0], y[0])).slice(0, 5);
  ans.q_city_age = [...cityAgeN].map(([k, c]) => { const i = k.lastIndexOf(','); return [k.slice(0, i), Number(k.slice(i + 1)), c]; })
    .sort((x, y) => y[2] - x[2] || str(x[0], y[0]) || x[1] - y[1]).slice(0, 5);
  // q_order_prop: the 10 oldest, ties by pid.
  const oldTop = new TopK(10, (x, y) => ages[y] - ages[x] || byPid(x, y));
  for (let p = 0; p < n; p++) oldTop.offer(p);
  ans.q_order_prop = oldTop.items.map((p) => pids[p]);
  // q_antijoin: persons without an out-edge.
  let noOut = 0;
  for (let a = 0; a < n; a++) if (off[a + 1] === off[a]) noOut++;
  ans.q_antijoin = noOut;
  // q_reach_filter: distance 1..2, not SRC, age > 50.
  const reach12 = new Set([...l1, ...l2]);
  if (s !== undefined) reach12.delete(s);
  ans.q_reach_filter = [...reach12].filter((v) => ages[v] > 50).length;
  ans.q_edge_filter = since2020;
  ans.q_edge_filter_group = [...cityOf2024].sort((x, y) => y[1] - x[1] || str(x[0], y[0])).slice(0, 5);
  ans.q_edge_filter_dst = dstOld2024;
  ans.q_edge_between = between;
  // q_2hop_paths_key: edge paths SRC->b->c.
  let paths2 = 0;
  if (s !== undefined) for (let i = off[s]; i < off[s + 1]; i++) paths2 += off[adj[i] + 1] - off[adj[i]];
  ans.q_2hop_paths_key = paths2;
  // q_shortest: BFS from SRC, at most 30 hops.
  const t = index.get(target);
  ans.q_shortest = null;
  if (s !== undefined && t !== undefined) {
    const dist = new Int32Array(n).fill(-1);
    dist[s] = 0;
    let frontier = [s];
    for (let d = 1; d <= 30 && frontier.length && ans.q_shortest === null; d++) {
      const nextFrontier = [];
      for (const v of frontier) {
        for (let i = off[v]; i < off[v + 1]; i++) {
          const w = adj[i];
          if (w === t) ans.q_shortest = d;  // t != s, so t is first reached here
          if (dist[w] < 0) { dist[w] = d; nextFrontier.push(w); }
        }
      }
      frontier = nextFrontier;
    }
  }
  // q_write_read: q_1hop after one new friend.
  ans.q_write_read = l1.size + 1;
  return { answers: ans, ms: round(nowMs() - t0, 1), persons: n, edges: m, agg1hop_age_sum: ageSum };
}

// The best k items under `cmp` (negative: x before y), in order.
class TopK {
  constructor(k, cmp) { this.k = k; this.cmp = cmp; this.items = []; }
  offer(x) {
    const items = this.items;
    if (items.length === this.k && this.cmp(x, items[items.length - 1]) >= 0) return;
    let i = items.length;
    while (i > 0 && this.cmp(x, items[i - 1]) < 0) i--;
    items.splice(i, 0, x);
    if (items.length > this.k) items.pop();
  }
}

// ---------------------------------------------------------------------------------------------
// The texts of one query as recorded in results.json: per language, or per peer where one differs
// (TGT left in place: it changes from run to run).
function queryTexts(q, opts) {
  const texts = {};
  for (const name of ['kuzu', 'duckdb', 'sqlite']) {
    const lang = q[name] !== undefined ? name : PEERS[name].query;
    if (texts[lang] !== undefined) continue;
    texts[lang] = substitute(textFor(q, name), opts);
    for (const part of ['write', 'undo', 'known']) {
      if (q[part]) texts[`${lang}_${part}`] = substitute(textFor(q[part], name), opts);
    }
  }
  return texts;
}

function printTable(results) {
  const peers = results.peers.filter((p) => p.ok);
  const cols = peers.map((p) => p.peer);
  const w = 13;
  const first = 20;  // the longest query name (q_edge_filter_group), and a space
  const pad = (s, n = w) => String(s).padStart(n);
  const lines = [];
  lines.push(`${'ms (median)'.padEnd(first)}${cols.map((c) => pad(c)).join('')}   answer`);
  lines.push(`${'load (s)'.padEnd(first)}${peers.map((p) => pad(p.load_s.toFixed(2))).join('')}`);
  lines.push(`${'rss load (MB)'.padEnd(first)}${peers.map((p) => pad(p.rss_after_load_mb)).join('')}`);
  lines.push(`${'peak rss (MB)'.padEnd(first)}${peers.map((p) => pad(p.peak_rss_mb)).join('')}`);
  for (const q of QUERIES) {
    const a = results.answers ? results.answers[q.name] : undefined;
    let as = a && typeof a === 'object' && !Array.isArray(a) ? `n=${a.count} avg=${a.avg.toFixed(4)}` : JSON.stringify(a);
    if (as !== undefined && as.length > 72) as = `${as.slice(0, 69)}...`;
    lines.push(`${q.name.padEnd(first)}${peers.map((p) => pad(p.queries[q.name].median_ms.toFixed(2))).join('')}   ${as}`);
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
    target: opts.target,
    reps: opts.reps,
    timing: 'median wall ms of --reps warm runs after one warm-up run; query text in, all rows in JS',
    machine: { nproc: os.cpus().length, cpu: os.cpus()[0] && os.cpus()[0].model, mem_gb: round(os.totalmem() / 2 ** 30, 1),
      loadavg_at_start: os.loadavg().map((x) => round(x, 2)), platform: `${os.platform()} ${os.release()}` },
    node: process.version,
    queries: Object.fromEntries(QUERIES.map((q) => [q.name, queryTexts(q, opts)])),
    answers: null,
    reference: null,
    peers: [],
    agree: false,
  };
  const problems = [];
  if (opts.reference) {
    const ref = reference(opts.data, opts.source, opts.target);
    results.reference = { ms: ref.ms, persons: ref.persons, edges: ref.edges, answers: ref.answers, agg1hop_age_sum: ref.agg1hop_age_sum };
    results.answers = ref.answers;
    console.error(`run.js: reference answers in ${ref.ms} ms (${ref.persons} persons, ${ref.edges} edges)`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'og-peers-'));
  for (const name of opts.peers) {
    const file = path.join(tmp, `${name}.json`);
    const args = [__filename, '--worker', name, '--result-file', file, '--data', opts.data, '--reps', String(opts.reps),
      '--source', opts.source, '--target', opts.target, '--peers', name];
    if (opts.threads) args.push('--threads', String(opts.threads));
    if (opts.disk) args.push('--disk', opts.disk);
    if (opts.only) args.push('--only', opts.only.join(','));
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
