#!/usr/bin/env node
// Deterministic social-graph generator for the side-by-side benchmarks (scripts/bench.sh).
//   node bench/peers/gen.js --persons N --edges M --out DIR [--seed S] [--shape skewed|uniform] [--skew K]
// Writes, in DIR:
//   schema.pg      the Omnigraph schema (Person keyed by pid, Knows: Person -> Person)
//   data.ndjson    Omnigraph load format: all Person records, then all Knows edges
//   persons.csv    pid,name,age,city        (header line; for the peers' bulk load)
//   knows.csv      src,dst,since            (header line)
//   meta.json      the parameters (shape included), counts and the maximum out-degree
// Same arguments => byte-identical files (mulberry32 PRNG, fixed seed, no Math.random). The data
// files of --shape skewed (the default) are those of the generator before --shape existed.
//
// Graph: persons p0..p(N-1); age uniform 18..90, city uniform among city0..city49.
// --shape skewed (default): a simple graph with skewed out-degrees (power-law-ish): each of the M
// edges picks a source rank r = floor(N * u^K) (u uniform in [0,1), K = --skew, default 2), ranks
// mapped to persons by a fixed random permutation, so hubs are scattered over the id space. Each
// source's targets are distinct, uniformly chosen persons other than itself: no self-loops, no
// duplicate (src, dst).
// --shape uniform: each of the M edges picks its source and its destination uniformly at random
// among all persons, independently: out- and in-degrees are binomial (no hubs), and parallel
// edges (the same (src, dst) twice or more) and self-loops occur and are kept (meta.json counts
// them: parallel_edges = edges repeating an earlier (src, dst), self_loops).
// Either way edges are written grouped by source (in person order; within a source in drawing
// order); since is uniform in 1990..2025.
'use strict';
const fs = require('fs');
const path = require('path');

function parseArgs(argv) {
  const a = { persons: 100000, edges: 1000000, out: null, seed: 42, skew: 2, shape: 'skewed' };
  let skewGiven = false;
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    if (k === '--persons') a.persons = Number(v), i++;
    else if (k === '--edges') a.edges = Number(v), i++;
    else if (k === '--out') a.out = v, i++;
    else if (k === '--seed') a.seed = Number(v), i++;
    else if (k === '--skew') a.skew = Number(v), skewGiven = true, i++;
    else if (k === '--shape') a.shape = v, i++;
    else if (k === '-h' || k === '--help') {
      console.log('usage: gen.js --persons N --edges M --out DIR [--seed S] [--shape skewed|uniform] [--skew K]');
      process.exit(0);
    } else {
      console.error(`gen.js: unknown argument ${k}`);
      process.exit(2);
    }
  }
  if (!a.out) { console.error('gen.js: --out DIR is required'); process.exit(2); }
  if (!(Number.isInteger(a.persons) && a.persons >= 2)) { console.error('gen.js: --persons must be an integer >= 2'); process.exit(2); }
  if (!(Number.isInteger(a.edges) && a.edges >= 0)) { console.error('gen.js: --edges must be an integer >= 0'); process.exit(2); }
  if (a.shape !== 'skewed' && a.shape !== 'uniform') { console.error('gen.js: --shape must be skewed or uniform'); process.exit(2); }
  if (a.shape === 'uniform' && skewGiven) { console.error('gen.js: --skew applies to --shape skewed only'); process.exit(2); }
  if (a.shape === 'skewed' && a.edges > a.persons * (a.persons - 1)) { console.error('gen.js: too many edges for a simple graph'); process.exit(2); }
  if (!(a.skew >= 1)) { console.error('gen.js: --skew must be >= 1'); process.exit(2); }
  return a;
}

// mulberry32: 32-bit state, good enough for benchmark data and fully reproducible.
function mulberry32(seed) {
  let s = seed >>> 0;
  return function next() {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Buffered writer: appends strings, flushes ~4 MiB at a time.
class Out {
  constructor(file) { this.fd = fs.openSync(file, 'w'); this.parts = []; this.len = 0; this.bytes = 0; }
  write(s) {
    this.parts.push(s);
    this.len += s.length;
    if (this.len >= 4 << 20) this.flush();
  }
  flush() {
    if (this.parts.length === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    fs.writeSync(this.fd, buf);
    this.bytes += buf.length;
    this.parts = [];
    this.len = 0;
  }
  close() { this.flush(); fs.closeSync(this.fd); }
}

const FIRST = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Frances', 'John', 'Radia',
  'Ken', 'Margaret', 'Dennis', 'Leslie', 'Niklaus', 'Tony', 'Shafi', 'Robin', 'Adele', 'Butler',
  'Fran', 'Jim', 'Silvio', 'Judea', 'Michael', 'Sophie', 'Yann', 'Hedy', 'Claude', 'Karen', 'Ivan'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Dijkstra', 'Liskov', 'Knuth', 'Allen', 'Backus',
  'Perlman', 'Thompson', 'Hamilton', 'Ritchie', 'Lamport', 'Wirth', 'Hoare', 'Goldwasser',
  'Milner', 'Goldberg', 'Lampson', 'Gray', 'Micali', 'Pearl', 'Stonebraker', 'Wilson', 'LeCun',
  'Lamarr', 'Shannon', 'Jones', 'Sutherland', 'Kay'];
const CITIES = 50;

// --shape skewed: the edges of a simple graph with skewed out-degrees (see the header).
function skewedEdges(N, M, skew, rnd, writeEdge) {
  // Rank -> person permutation (Fisher-Yates).
  const perm = new Uint32Array(N);
  for (let i = 0; i < N; i++) perm[i] = i;
  for (let i = N - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    const t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  // Out-degree per person: M draws of a skewed rank; capped at N-1 (overflow re-drawn).
  const deg = new Uint32Array(N);
  let placed = 0;
  while (placed < M) {
    const r = Math.min(N - 1, Math.floor(N * Math.pow(rnd(), skew)));
    const p = perm[r];
    if (deg[p] < N - 1) { deg[p]++; placed++; }
  }
  // Targets: distinct, not the source.
  let maxDeg = 0;
  let written = 0;
  const seen = new Set();
  for (let s = 0; s < N; s++) {
    const d = deg[s];
    if (d === 0) continue;
    if (d > maxDeg) maxDeg = d;
    seen.clear();
    while (seen.size < d) {
      const t = Math.floor(rnd() * N);
      if (t === s || seen.has(t)) continue;
      seen.add(t);
      const since = 1990 + Math.floor(rnd() * 36);
      writeEdge(s, t, since);
      written++;
    }
  }
  return { maxDeg, written };
}

// --shape uniform: M edges with source and destination drawn uniformly and independently (in that
// order, then since), written grouped by source (a stable counting sort keeps the drawing order
// within a source). Parallel edges and self-loops are kept and counted.
function uniformEdges(N, M, rnd, writeEdge) {
  const src = new Uint32Array(M);
  const dst = new Uint32Array(M);
  const since = new Uint16Array(M);
  const deg = new Uint32Array(N);
  for (let e = 0; e < M; e++) {
    src[e] = Math.floor(rnd() * N);
    dst[e] = Math.floor(rnd() * N);
    since[e] = 1990 + Math.floor(rnd() * 36);
    deg[src[e]]++;
  }
  const start = new Float64Array(N + 1);
  for (let s = 0; s < N; s++) start[s + 1] = start[s] + deg[s];
  const order = new Uint32Array(M);
  const pos = start.slice(0, N);
  for (let e = 0; e < M; e++) order[pos[src[e]]++] = e;
  let maxDeg = 0;
  let written = 0;
  let selfLoops = 0;
  let parallel = 0;
  const seen = new Set();
  for (let s = 0; s < N; s++) {
    if (deg[s] > maxDeg) maxDeg = deg[s];
    seen.clear();
    for (let i = start[s]; i < start[s + 1]; i++) {
      const e = order[i];
      if (dst[e] === s) selfLoops++;
      if (seen.has(dst[e])) parallel++;
      else seen.add(dst[e]);
      writeEdge(s, dst[e], since[e]);
      written++;
    }
  }
  return { maxDeg, written, selfLoops, parallel };
}

function main() {
  const a = parseArgs(process.argv);
  const N = a.persons;
  const M = a.edges;
  fs.mkdirSync(a.out, { recursive: true });
  const rnd = mulberry32(a.seed);
  const t0 = Date.now();

  fs.writeFileSync(path.join(a.out, 'schema.pg'),
    '// Generated by bench/peers/gen.js: the social graph of the side-by-side benchmarks.\n' +
    'node Person {\n  pid: String @key\n  name: String\n  age: I64\n  city: String\n}\n\n' +
    'edge Knows: Person -> Person {\n  since: I64\n}\n');

  const ndjson = new Out(path.join(a.out, 'data.ndjson'));
  const pcsv = new Out(path.join(a.out, 'persons.csv'));
  const kcsv = new Out(path.join(a.out, 'knows.csv'));
  pcsv.write('pid,name,age,city\n');
  kcsv.write('src,dst,since\n');

  // Persons.
  for (let i = 0; i < N; i++) {
    const name = `${FIRST[Math.floor(rnd() * FIRST.length)]} ${LAST[Math.floor(rnd() * LAST.length)]}`;
    const age = 18 + Math.floor(rnd() * 73);
    const city = `city${Math.floor(rnd() * CITIES)}`;
    pcsv.write(`p${i},${name},${age},${city}\n`);
    ndjson.write(`{"type":"Person","data":{"pid":"p${i}","name":"${name}","age":${age},"city":"${city}"}}\n`);
  }

  const writeEdge = (src, dst, since) => {
    kcsv.write(`p${src},p${dst},${since}\n`);
    ndjson.write(`{"edge":"Knows","from":"p${src}","to":"p${dst}","data":{"since":${since}}}\n`);
  };
  const edges = a.shape === 'skewed' ? skewedEdges(N, M, a.skew, rnd, writeEdge) : uniformEdges(N, M, rnd, writeEdge);
  const { maxDeg, written } = edges;
  ndjson.close(); pcsv.close(); kcsv.close();
  if (written !== M) throw new Error(`internal: wrote ${written} edges, wanted ${M}`);

  const meta = {
    generator: 'bench/peers/gen.js', version: 1, seed: a.seed, shape: a.shape,
    ...(a.shape === 'skewed' ? { skew: a.skew } : { self_loops: edges.selfLoops, parallel_edges: edges.parallel }),
    persons: N, edges: M, max_out_degree: maxDeg,
    bytes: { 'data.ndjson': ndjson.bytes, 'persons.csv': pcsv.bytes, 'knows.csv': kcsv.bytes },
  };
  fs.writeFileSync(path.join(a.out, 'meta.json'), JSON.stringify(meta, null, 2) + '\n');
  const extra = a.shape === 'uniform' ? `, ${edges.parallel} parallel, ${edges.selfLoops} self-loops` : '';
  console.log(`gen: ${N} persons, ${M} edges (${a.shape}: max out-degree ${maxDeg}${extra}) in ${a.out} ` +
    `(${(ndjson.bytes / 1e6).toFixed(1)} MB ndjson) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main();
