// tools/s3_server checked by an independent S3 client: the AWS SDK for JavaScript v3
// (@aws-sdk/client-s3, pinned in tools/package.json, installed in tools/node_modules).
// Buckets, PutObject/GetObject/HeadObject, ranges, conditional writes (IfNoneMatch "*", IfMatch),
// ListObjectsV2 paging, DeleteObjects, multipart uploads (with a conditional Complete), Abort,
// a wrong secret, and 10 racing IfNoneMatch "*" writers of one key (exactly one wins).
//   node tests/s3/aws_sdk.mjs path/to/omnigraph-s3-server
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true"; // node 20: no noise on stderr
// The repo may be cloned anywhere: resolve the SDK from <repo>/tools/node_modules, relative to this file.
const require = createRequire(new URL("../../tools/package.json", import.meta.url));
const s3 = require("@aws-sdk/client-s3");
const {
  S3Client, CreateBucketCommand, HeadBucketCommand, PutObjectCommand, GetObjectCommand, HeadObjectCommand,
  ListObjectsV2Command, DeleteObjectsCommand, DeleteObjectCommand, CreateMultipartUploadCommand, UploadPartCommand,
  CompleteMultipartUploadCommand, AbortMultipartUploadCommand, ListBucketsCommand,
} = s3;

const server = process.argv[2];
if (!server) {
  console.error("usage: node tests/s3/aws_sdk.mjs path/to/omnigraph-s3-server");
  process.exit(2);
}

class TestFailure extends Error {}
let stage = "starting the server"; // named in the failure message
const step = (name) => { stage = name; };
function check(cond, what) {
  if (!cond) throw new TestFailure(what);
}
function eq(got, want, what) {
  check(got === want, `${what}: got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
}
const md5 = (b) => createHash("md5").update(b).digest("hex");
const md5bin = (b) => createHash("md5").update(b).digest();

const ACCESS = "AKIDSDKTEST";
const SECRET = "sdk-test-secret";
const dir = mkdtempSync(join(tmpdir(), "og-s3-sdk-"));
let child = null;
// a killed test (ctest timeout, ^C) still stops its server
process.on("exit", () => {
  if (child && child.exitCode === null) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => process.exit(130));

function startServer() {
  return new Promise((resolve, reject) => {
    child = spawn(server, ["--listen", "127.0.0.1:0", "--root", join(dir, "root"), "--access-key-id", ACCESS,
      "--secret-access-key", SECRET], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new TestFailure(`server did not start: ${out} ${err}`)), 10000);
    child.stdout.on("data", (d) => {
      out += d;
      const m = /^listening on 127\.0\.0\.1:(\d+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.stderr.on("data", (d) => { err += d; });
    child.on("error", (e) => { clearTimeout(timer); reject(e); });
    child.on("exit", (code) => { clearTimeout(timer); reject(new TestFailure(`server exited ${code}: ${err}`)); });
  });
}

function client(port, secret = SECRET, extra = {}) {
  return new S3Client({
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: ACCESS, secretAccessKey: secret },
    // SDK >= 3.729 adds CRC32 checksums by default, and for a streaming body sends it aws-chunked with a
    // trailer (x-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER), which the server does not
    // implement. Only what S3 requires, then (Content-MD5 for DeleteObjects).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 1, // a 412 or 503 must reach the test, not be retried
    ...extra,
  });
}

// Runs fn, which must throw an S3 error with this HTTP status and error name/Code.
async function expectError(fn, status, name, what) {
  let err = null;
  try {
    await fn();
  } catch (e) {
    err = e;
  }
  check(err !== null, `${what}: succeeded, expected ${status} ${name}`);
  if (err instanceof TestFailure) throw err;
  eq(err.$metadata?.httpStatusCode, status, `${what}: HTTP status (error ${err.name}: ${err.message})`);
  if (name !== null) {
    check(err.name === name || err.Code === name, `${what}: error name ${err.name} / Code ${err.Code}, expected ${name}`);
  }
  return err;
}

async function body(c, Bucket, Key, extra = {}) {
  const r = await c.send(new GetObjectCommand({ Bucket, Key, ...extra }));
  return { r, bytes: Buffer.from(await r.Body.transformToByteArray()) };
}

async function main() {
  const port = await startServer();
  const c = client(port);
  const B = "sdk-bucket";

  step("buckets");
  // --- buckets
  eq((await c.send(new CreateBucketCommand({ Bucket: B }))).$metadata.httpStatusCode, 200, "CreateBucket");
  await expectError(() => c.send(new CreateBucketCommand({ Bucket: B })), 409, "BucketAlreadyOwnedByYou",
    "CreateBucket again");
  eq((await c.send(new HeadBucketCommand({ Bucket: B }))).$metadata.httpStatusCode, 200, "HeadBucket");
  await expectError(() => c.send(new HeadBucketCommand({ Bucket: "no-such-bucket" })), 404, null, "HeadBucket missing");
  const buckets = (await c.send(new ListBucketsCommand({}))).Buckets.map((b) => b.Name);
  check(buckets.includes(B), `ListBuckets: ${buckets}`);

  step("PutObject/GetObject/HeadObject/Range");
  // --- PutObject / GetObject / HeadObject / Range
  const v1 = Buffer.from("first version of the object\n");
  const put1 = await c.send(new PutObjectCommand({ Bucket: B, Key: "dir/obj", Body: v1 }));
  eq(put1.ETag, `"${md5(v1)}"`, "PutObject ETag");
  let got = await body(c, B, "dir/obj");
  check(got.bytes.equals(v1), `GetObject body: ${got.bytes}`);
  eq(got.r.ETag, put1.ETag, "GetObject ETag");
  eq(got.r.ContentLength, v1.length, "GetObject ContentLength");
  check(got.r.LastModified instanceof Date && !isNaN(got.r.LastModified), "GetObject LastModified");
  const head = await c.send(new HeadObjectCommand({ Bucket: B, Key: "dir/obj" }));
  eq(head.ContentLength, v1.length, "HeadObject ContentLength");
  eq(head.ETag, put1.ETag, "HeadObject ETag");
  await expectError(() => c.send(new HeadObjectCommand({ Bucket: B, Key: "dir/missing" })), 404, "NotFound",
    "HeadObject missing");
  await expectError(() => c.send(new GetObjectCommand({ Bucket: B, Key: "dir/missing" })), 404, "NoSuchKey",
    "GetObject missing");
  got = await body(c, B, "dir/obj", { Range: "bytes=6-12" });
  eq(got.r.$metadata.httpStatusCode, 206, "GetObject Range status");
  eq(got.bytes.toString(), v1.subarray(6, 13).toString(), "GetObject Range body");
  eq(got.r.ContentRange, `bytes 6-12/${v1.length}`, "GetObject ContentRange");
  eq(got.r.ContentLength, 7, "GetObject Range ContentLength");
  await expectError(() => c.send(new GetObjectCommand({ Bucket: B, Key: "dir/obj", Range: `bytes=${v1.length}-` })),
    416, "InvalidRange", "GetObject Range past the end");
  // a streaming body (known length) goes as a signed UNSIGNED-PAYLOAD request
  const sv = Buffer.from("streamed body");
  await c.send(new PutObjectCommand({ Bucket: B, Key: "dir/stream", Body: Readable.from([sv]), ContentLength: sv.length }));
  check((await body(c, B, "dir/stream")).bytes.equals(sv), "streamed PutObject round trip");

  step("conditional PutObject");
  // --- conditional PutObject
  const v2 = Buffer.from("second version\n");
  await expectError(() => c.send(new PutObjectCommand({ Bucket: B, Key: "dir/obj", Body: v2, IfNoneMatch: "*" })),
    412, "PreconditionFailed", "PutObject IfNoneMatch * on an existing key");
  check((await body(c, B, "dir/obj")).bytes.equals(v1), "object changed by a refused IfNoneMatch write");
  const created = await c.send(new PutObjectCommand({ Bucket: B, Key: "dir/new", Body: v2, IfNoneMatch: "*" }));
  eq(created.ETag, `"${md5(v2)}"`, "PutObject IfNoneMatch * on a new key");
  check((await body(c, B, "dir/new")).bytes.equals(v2), "created object body");
  await expectError(() => c.send(new PutObjectCommand({ Bucket: B, Key: "dir/obj", Body: v2, IfMatch: `"${md5("x")}"` })),
    412, "PreconditionFailed", "PutObject IfMatch with a wrong ETag");
  check((await body(c, B, "dir/obj")).bytes.equals(v1), "object changed by a refused IfMatch write");
  const replaced = await c.send(new PutObjectCommand({ Bucket: B, Key: "dir/obj", Body: v2, IfMatch: put1.ETag }));
  eq(replaced.ETag, `"${md5(v2)}"`, "PutObject IfMatch with the right ETag");
  check((await body(c, B, "dir/obj")).bytes.equals(v2), "object after the IfMatch write");
  await expectError(() => c.send(new PutObjectCommand({ Bucket: B, Key: "dir/obj", Body: v1, IfMatch: put1.ETag })),
    412, "PreconditionFailed", "PutObject IfMatch with a stale ETag");
  await expectError(() => c.send(new PutObjectCommand({ Bucket: B, Key: "dir/none", Body: v1, IfMatch: put1.ETag })),
    404, "NoSuchKey", "PutObject IfMatch on a missing key");

  step("ListObjectsV2 paging");
  // --- ListObjectsV2 paging: MaxKeys=2 over 5 keys
  const L = "list-bucket";
  await c.send(new CreateBucketCommand({ Bucket: L }));
  const keys = ["k/5", "k/1", "k/4", "k/2", "k/3"];
  for (const k of keys) await c.send(new PutObjectCommand({ Bucket: L, Key: k, Body: Buffer.from(k) }));
  await c.send(new PutObjectCommand({ Bucket: L, Key: "other", Body: Buffer.from("o") }));
  const listed = [];
  let token;
  let pages = 0;
  for (;;) {
    const r = await c.send(new ListObjectsV2Command({ Bucket: L, Prefix: "k/", MaxKeys: 2, ContinuationToken: token }));
    pages++;
    check(pages <= 10, "ListObjectsV2 paging does not end");
    check((r.Contents ?? []).length <= 2, `page ${pages} has ${(r.Contents ?? []).length} keys`);
    eq(r.KeyCount, (r.Contents ?? []).length, `page ${pages} KeyCount`);
    for (const o of r.Contents ?? []) {
      listed.push(o.Key);
      eq(o.Size, o.Key.length, `Size of ${o.Key}`);
      eq(o.ETag, `"${md5(o.Key)}"`, `ETag of ${o.Key}`);
    }
    if (!r.IsTruncated) {
      eq(r.NextContinuationToken, undefined, "last page NextContinuationToken");
      break;
    }
    check(r.NextContinuationToken, "truncated page without NextContinuationToken");
    token = r.NextContinuationToken;
  }
  eq(JSON.stringify(listed), JSON.stringify([...keys].sort()), "ListObjectsV2 pages");
  eq(pages, 3, "ListObjectsV2 page count");
  const delim = await c.send(new ListObjectsV2Command({ Bucket: L, Delimiter: "/" }));
  eq(JSON.stringify((delim.Contents ?? []).map((o) => o.Key)), '["other"]', "Delimiter / Contents");
  eq(JSON.stringify((delim.CommonPrefixes ?? []).map((p) => p.Prefix)), '["k/"]', "Delimiter / CommonPrefixes");

  step("DeleteObjects");
  // --- DeleteObjects of 3 keys (the SDK adds the required Content-MD5)
  const del = await c.send(new DeleteObjectsCommand({
    Bucket: L, Delete: { Objects: [{ Key: "k/1" }, { Key: "k/3" }, { Key: "k/5" }] },
  }));
  eq(JSON.stringify((del.Deleted ?? []).map((d) => d.Key).sort()), '["k/1","k/3","k/5"]', "DeleteObjects Deleted");
  eq((del.Errors ?? []).length, 0, "DeleteObjects Errors");
  // the SDK sends DeleteObjects with x-amz-checksum-crc32 (no Content-MD5): a wrong CRC32 is refused
  const tampered = client(port);
  tampered.middlewareStack.addRelativeTo((next) => async (args) => {
    if (args.request.headers["x-amz-checksum-crc32"] === undefined) throw new TestFailure("no x-amz-checksum-crc32 sent");
    args.request.headers["x-amz-checksum-crc32"] = "AAAAAA==";
    return next(args);
  }, { relation: "after", toMiddleware: "flexibleChecksumsMiddleware", name: "tamperCrc32" });
  await expectError(() => tampered.send(new DeleteObjectsCommand({ Bucket: L, Delete: { Objects: [{ Key: "k/2" }] } })),
    400, "BadDigest", "DeleteObjects with a wrong CRC32");
  tampered.destroy();
  const after = await c.send(new ListObjectsV2Command({ Bucket: L }));
  eq(JSON.stringify(after.Contents.map((o) => o.Key)), '["k/2","k/4","other"]', "keys after DeleteObjects");
  await c.send(new DeleteObjectCommand({ Bucket: L, Key: "other" }));
  await expectError(() => c.send(new GetObjectCommand({ Bucket: L, Key: "other" })), 404, "NoSuchKey",
    "GetObject after DeleteObject");

  step("multipart upload");
  // --- multipart: 5 MiB + 1 KiB
  const part1 = Buffer.alloc(5 * 1024 * 1024);
  for (let i = 0; i < part1.length; i++) part1[i] = (i * 31 + (i >> 10)) & 0xff;
  const part2 = Buffer.alloc(1024, 0x5a);
  const mpu = await c.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "big/object" }));
  check(mpu.UploadId, "CreateMultipartUpload UploadId");
  const p1 = await c.send(new UploadPartCommand({ Bucket: B, Key: "big/object", UploadId: mpu.UploadId, PartNumber: 1, Body: part1 }));
  const p2 = await c.send(new UploadPartCommand({ Bucket: B, Key: "big/object", UploadId: mpu.UploadId, PartNumber: 2, Body: part2 }));
  eq(p1.ETag, `"${md5(part1)}"`, "UploadPart 1 ETag");
  eq(p2.ETag, `"${md5(part2)}"`, "UploadPart 2 ETag");
  const done = await c.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: "big/object", UploadId: mpu.UploadId,
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }, { PartNumber: 2, ETag: p2.ETag }] },
  }));
  const wantEtag = `"${md5(Buffer.concat([md5bin(part1), md5bin(part2)]))}-2"`;
  check(done.ETag.endsWith('-2"'), `CompleteMultipartUpload ETag ${done.ETag}`);
  eq(done.ETag, wantEtag, "CompleteMultipartUpload ETag");
  got = await body(c, B, "big/object");
  check(got.bytes.equals(Buffer.concat([part1, part2])), `multipart GetObject body (${got.bytes.length} bytes)`);
  eq(got.r.ETag, wantEtag, "multipart GetObject ETag");

  step("conditional CompleteMultipartUpload / Abort");
  // CompleteMultipartUpload IfNoneMatch "*" on an existing key: 412, the object unchanged, then Abort
  const mpu2 = await c.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "big/object" }));
  const q1 = await c.send(new UploadPartCommand({ Bucket: B, Key: "big/object", UploadId: mpu2.UploadId, PartNumber: 1, Body: part2 }));
  const complete2 = () => c.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: "big/object", UploadId: mpu2.UploadId, IfNoneMatch: "*",
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: q1.ETag }] },
  }));
  await expectError(complete2, 412, "PreconditionFailed", "CompleteMultipartUpload IfNoneMatch * on an existing key");
  eq((await c.send(new HeadObjectCommand({ Bucket: B, Key: "big/object" }))).ETag, wantEtag,
    "object after the refused CompleteMultipartUpload");
  const abort = await c.send(new AbortMultipartUploadCommand({ Bucket: B, Key: "big/object", UploadId: mpu2.UploadId }));
  eq(abort.$metadata.httpStatusCode, 204, "AbortMultipartUpload");
  await expectError(complete2, 404, "NoSuchUpload", "CompleteMultipartUpload after Abort");
  await expectError(() => c.send(new UploadPartCommand({ Bucket: B, Key: "big/object", UploadId: mpu2.UploadId, PartNumber: 2, Body: part2 })),
    404, "NoSuchUpload", "UploadPart after Abort");
  // CompleteMultipartUpload IfNoneMatch "*" on a new key succeeds
  const mpu3 = await c.send(new CreateMultipartUploadCommand({ Bucket: B, Key: "big/fresh" }));
  const r1 = await c.send(new UploadPartCommand({ Bucket: B, Key: "big/fresh", UploadId: mpu3.UploadId, PartNumber: 1, Body: part2 }));
  const done3 = await c.send(new CompleteMultipartUploadCommand({
    Bucket: B, Key: "big/fresh", UploadId: mpu3.UploadId, IfNoneMatch: "*",
    MultipartUpload: { Parts: [{ PartNumber: 1, ETag: r1.ETag }] },
  }));
  eq(done3.ETag, `"${md5(md5bin(part2))}-1"`, "CompleteMultipartUpload IfNoneMatch * on a new key");
  check((await body(c, B, "big/fresh")).bytes.equals(part2), "big/fresh body");

  step("default checksum settings");
  // --- the SDK's default checksum settings (WHEN_SUPPORTED): a whole body goes with an
  // x-amz-checksum-crc32 header and works; a stream goes aws-chunked with a trailer, which the
  // server does not implement: 501 NotImplemented, nothing stored.
  const dflt = client(port, SECRET, {
    requestChecksumCalculation: "WHEN_SUPPORTED", responseChecksumValidation: "WHEN_SUPPORTED",
    logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} }, // no "non-retryable streaming request" warning
  });
  const dv = Buffer.from("default checksum settings");
  eq((await dflt.send(new PutObjectCommand({ Bucket: B, Key: "dflt/whole", Body: dv }))).ETag, `"${md5(dv)}"`,
    "default-settings PutObject ETag");
  check((await body(dflt, B, "dflt/whole")).bytes.equals(dv), "default-settings GetObject body");
  await expectError(() => dflt.send(new PutObjectCommand({
    Bucket: B, Key: "dflt/stream", Body: Readable.from([dv]), ContentLength: dv.length,
  })), 501, "NotImplemented", "default-settings streaming PutObject (aws-chunked)");
  await expectError(() => c.send(new HeadObjectCommand({ Bucket: B, Key: "dflt/stream" })), 404, null,
    "the refused aws-chunked PutObject stored an object");
  dflt.destroy();

  step("wrong secret");
  // --- wrong secret
  const bad = client(port, "not-the-secret");
  await expectError(() => bad.send(new GetObjectCommand({ Bucket: B, Key: "dir/obj" })), 403, "SignatureDoesNotMatch",
    "GetObject with a wrong secret");
  await expectError(() => bad.send(new PutObjectCommand({ Bucket: B, Key: "dir/bad", Body: v1 })), 403,
    "SignatureDoesNotMatch", "PutObject with a wrong secret");
  await expectError(() => c.send(new HeadObjectCommand({ Bucket: B, Key: "dir/bad" })), 404, null,
    "object written with a wrong secret");

  step("10 racing IfNoneMatch writers");
  // --- 10 concurrent PutObject IfNoneMatch "*" of one key: exactly one wins
  const racers = Array.from({ length: 10 }, (_, i) => Buffer.from(`racer ${i} `.repeat(1000 + i)));
  const clients = racers.map(() => client(port)); // separate connections
  const results = await Promise.allSettled(racers.map((b, i) =>
    clients[i].send(new PutObjectCommand({ Bucket: B, Key: "race/key", Body: b, IfNoneMatch: "*" }))));
  const winners = results.map((r, i) => [r, i]).filter(([r]) => r.status === "fulfilled");
  const losers = results.filter((r) => r.status === "rejected");
  eq(winners.length, 1, "racing IfNoneMatch * writers that succeeded");
  eq(losers.length, 9, "racing IfNoneMatch * writers refused");
  for (const l of losers) {
    eq(l.reason.$metadata?.httpStatusCode, 412, `a refused racer (${l.reason.name}: ${l.reason.message})`);
    eq(l.reason.name, "PreconditionFailed", "a refused racer's error");
  }
  const [[win, wi]] = winners;
  got = await body(c, B, "race/key");
  check(got.bytes.equals(racers[wi]), "the stored object is not the winner's body");
  eq(got.r.ETag, win.value.ETag, "the stored object's ETag is the winner's");
  for (const x of clients) x.destroy();
  bad.destroy();
  c.destroy();
}

let rc = 0;
const t0 = Date.now();
try {
  await main();
  console.log(`PASS: aws_sdk (${Date.now() - t0} ms)`);
} catch (e) {
  console.error(`FAIL (${stage}): ${e instanceof TestFailure ? e.message : e.stack ?? e}`);
  rc = 1;
} finally {
  if (child && child.exitCode === null) {
    child.removeAllListeners("exit");
    const exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve([code, sig])));
    child.kill("SIGTERM");
    const [code, sig] = await exited;
    if (rc === 0 && code !== 0) {
      console.error(`FAIL: server exit ${code} ${sig ?? ""} after SIGTERM`);
      rc = 1;
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
process.exit(rc);
