#!/usr/bin/env bash
# tools/s3_server checked by an independent S3 client: curl's own SigV4 signer (--aws-sigv4).
# Buckets, objects, ranges, conditional writes (If-None-Match: * / If-Match), listing with
# prefix/delimiter and continuation-token paging, DeleteObject(s), authentication failures, a
# `--fault slowdown=1` server, and virtual-hosted addressing.
#   tests/s3/curl_sigv4.sh path/to/omnigraph-s3-server
#
# curl 7.88 signs the query string exactly as written (no sorting, no percent-encoding, `?x` not
# canonicalized to `x=`: curl issues #8107, #9717, #11794, fixed in later curls), so every query
# below is written in canonical form: parameters sorted, values percent-encoded, `?delete=`.
set -euo pipefail
srv="$1"
dir="$(mktemp -d)"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # a killed test (ctest timeout) still stops its servers
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl > /dev/null || fail "curl not found"
command -v openssl > /dev/null || fail "openssl not found"

KEY=AKIDTEST
SECRET=test-secret-key
port=""
# start_server NAME [extra args...]: starts a server on port 0 in $dir/NAME, sets $port.
start_server() {
  local name="$1"; shift
  mkdir -p "$dir/$name"
  "$srv" --listen 127.0.0.1:0 --root "$dir/$name/root" --access-key-id "$KEY" \
    --secret-access-key "$SECRET" "$@" > "$dir/$name/out" 2> "$dir/$name/err" &
  pids+=("$!")
  local i
  for i in $(seq 1 200); do
    port="$(sed -n 's/^listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$dir/$name/out")"
    [[ -n "$port" ]] && return 0
    kill -0 "${pids[-1]}" 2>/dev/null || fail "server $name exited: $(cat "$dir/$name/err")"
    sleep 0.05
  done
  fail "server $name did not print its port"
}

# req [curl args...] URL: one request; sets $code, the last header block in $dir/h, body in $dir/b.
code=""
raw() {
  code="$(curl -sS -o "$dir/b" -D "$dir/h.all" -w '%{http_code}' "$@")" || fail "curl failed: $*"
  # with Expect: 100-continue, -D holds the interim 100 block first: keep the final block only
  tr -d '\r' < "$dir/h.all" | awk '/^HTTP\//{n++} {blk[n]=blk[n] $0 "\n"} END{printf "%s", blk[n]}' > "$dir/h"
}
req() { raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"; }
hdr() { grep -i "^$1:" "$dir/h" | tail -n 1 | cut -d: -f2- | sed 's/^ *//'; }
want() { [[ "$code" == "$1" ]] || fail "$2: status $code, expected $1; body: $(head -c 400 "$dir/b")"; }
body_has() { grep -qF -- "$1" "$dir/b" || fail "$2: body lacks '$1': $(head -c 400 "$dir/b")"; }
body_is() { cmp -s "$dir/b" "$1" || fail "$2: body differs: $(head -c 200 "$dir/b")"; }
md5hex() { md5sum "$1" | cut -d' ' -f1; }
md5b64() { openssl dgst -md5 -binary "$1" | base64; }
keys() { grep -o '<Contents><Key>[^<]*' "$dir/b" | sed 's/<Contents><Key>//' | paste -sd' ' -; }
prefixes() { grep -o '<CommonPrefixes><Prefix>[^<]*' "$dir/b" | sed 's/<CommonPrefixes><Prefix>//' | paste -sd' ' -; }
urlencode() {  # SigV4 URI encoding: all but A-Za-z0-9-_.~
  local s="$1" out="" c i
  for (( i = 0; i < ${#s}; i++ )); do
    c="${s:i:1}"
    case "$c" in [A-Za-z0-9._~-]) out+="$c" ;; *) out+="$(printf '%%%02X' "'$c")" ;; esac
  done
  printf '%s' "$out"
}
xml() { grep -o "<$1>[^<]*</$1>" "$dir/b" | head -n 1 | sed "s/<$1>//; s/<\/$1>//"; }

start_server main
U="http://127.0.0.1:$port"

# --- buckets
req -X PUT "$U/bkt"; want 200 "CreateBucket"
req -X PUT "$U/bkt"; want 409 "CreateBucket again"; body_has "<Code>BucketAlreadyOwnedByYou</Code>" "CreateBucket again"
req -I "$U/bkt"; want 200 "HeadBucket"
req -I "$U/missing-bkt"; want 404 "HeadBucket of a missing bucket"
req "$U/"; want 200 "ListBuckets"; body_has "<Name>bkt</Name>" "ListBuckets"
req -X PUT "$U/Bad_Bucket"; want 400 "CreateBucket with an invalid name"; body_has "<Code>InvalidBucketName</Code>" "invalid bucket name"

# --- PutObject / GetObject / ranges / HeadObject
printf 'hello, s3 world' > "$dir/v1"          # 15 bytes
n=$(stat -c %s "$dir/v1")
req -T "$dir/v1" "$U/bkt/a/b.txt"; want 200 "PutObject"
etag1="\"$(md5hex "$dir/v1")\""
[[ "$(hdr ETag)" == "$etag1" ]] || fail "PutObject ETag $(hdr ETag), expected $etag1"
req "$U/bkt/a/b.txt"; want 200 "GetObject"; body_is "$dir/v1" "GetObject"
[[ "$(hdr ETag)" == "$etag1" ]] || fail "GetObject ETag $(hdr ETag), expected $etag1"
[[ "$(hdr Content-Length)" == "$n" ]] || fail "GetObject Content-Length $(hdr Content-Length)"
[[ -n "$(hdr Last-Modified)" ]] || fail "GetObject without Last-Modified"
req -H 'Range: bytes=1-3' "$U/bkt/a/b.txt"; want 206 "GetObject bytes=1-3"
[[ "$(hdr Content-Range)" == "bytes 1-3/$n" ]] || fail "Content-Range '$(hdr Content-Range)', expected 'bytes 1-3/$n'"
[[ "$(cat "$dir/b")" == "ell" ]] || fail "range body '$(cat "$dir/b")'"
req -H 'Range: bytes=-5' "$U/bkt/a/b.txt"; want 206 "GetObject bytes=-5"
[[ "$(cat "$dir/b")" == "world" && "$(hdr Content-Range)" == "bytes 10-14/$n" ]] || fail "suffix range: '$(cat "$dir/b")' $(hdr Content-Range)"
req -H "Range: bytes=$n-" "$U/bkt/a/b.txt"; want 416 "GetObject range past the end"; body_has "<Code>InvalidRange</Code>" "range past the end"
req -I "$U/bkt/a/b.txt"; want 200 "HeadObject"
[[ "$(hdr Content-Length)" == "$n" && "$(hdr ETag)" == "$etag1" ]] || fail "HeadObject headers: $(cat "$dir/h")"
req -I "$U/bkt/no/such/key"; want 404 "HeadObject of a missing key"
req "$U/bkt/no/such/key"; want 404 "GetObject of a missing key"; body_has "<Code>NoSuchKey</Code>" "GetObject of a missing key"
req "$U/missing-bkt/k"; want 404 "GetObject in a missing bucket"; body_has "<Code>NoSuchBucket</Code>" "missing bucket"

# --- payload hash and Content-MD5 are checked
sha="$(sha256sum "$dir/v1" | cut -d' ' -f1)"
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" -H "x-amz-content-sha256: $sha" -T "$dir/v1" "$U/bkt/signed.txt"
want 200 "PutObject with the body's sha256"
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" -H "x-amz-content-sha256: $(printf x | sha256sum | cut -d' ' -f1)" \
  -T "$dir/v1" "$U/bkt/signed2.txt"
want 400 "PutObject with another body's sha256"; body_has "<Code>XAmzContentSHA256Mismatch</Code>" "sha256 mismatch"
req -H "Content-MD5: $(printf x | openssl dgst -md5 -binary | base64)" -T "$dir/v1" "$U/bkt/md5.txt"
want 400 "PutObject with a wrong Content-MD5"; body_has "<Code>BadDigest</Code>" "wrong Content-MD5"
req -I "$U/bkt/md5.txt"; want 404 "the BadDigest object was stored"

# --- conditional writes
printf 'second version!' > "$dir/v2"
req -H 'If-None-Match: *' -T "$dir/v2" "$U/bkt/a/b.txt"; want 412 "If-None-Match: * on an existing key"
body_has "<Code>PreconditionFailed</Code>" "If-None-Match: * on an existing key"
req "$U/bkt/a/b.txt"; want 200 "GetObject after a refused write"; body_is "$dir/v1" "object after the refused If-None-Match write"
req -H 'If-None-Match: *' -T "$dir/v2" "$U/bkt/a/new.txt"; want 200 "If-None-Match: * on a new key"
req "$U/bkt/a/new.txt"; want 200 "GetObject of the created key"; body_is "$dir/v2" "created key"
req -H 'If-Match: "0123456789abcdef0123456789abcdef"' -T "$dir/v2" "$U/bkt/a/b.txt"; want 412 "If-Match with a wrong ETag"
body_has "<Code>PreconditionFailed</Code>" "If-Match with a wrong ETag"
req "$U/bkt/a/b.txt"; body_is "$dir/v1" "object after the refused If-Match write"
req -H "If-Match: $etag1" -T "$dir/v2" "$U/bkt/a/b.txt"; want 200 "If-Match with the right ETag"
etag2="\"$(md5hex "$dir/v2")\""
[[ "$(hdr ETag)" == "$etag2" ]] || fail "If-Match PutObject ETag $(hdr ETag), expected $etag2"
req "$U/bkt/a/b.txt"; body_is "$dir/v2" "object after the If-Match write"
req -H "If-Match: $etag1" -T "$dir/v1" "$U/bkt/a/b.txt"; want 412 "If-Match with the replaced (stale) ETag"
req -H "If-Match: $etag1" -T "$dir/v1" "$U/bkt/a/missing.txt"; want 404 "If-Match on a missing key"
body_has "<Code>NoSuchKey</Code>" "If-Match on a missing key"
req -I "$U/bkt/a/missing.txt"; want 404 "If-Match on a missing key created it"

# --- authentication
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:wrong-secret" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$U/bkt/a/b.txt"
want 403 "wrong secret"; body_has "<Code>SignatureDoesNotMatch</Code>" "wrong secret"
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "OTHERKEY:$SECRET" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$U/bkt/a/b.txt"
want 403 "unknown access key"; body_has "<Code>InvalidAccessKeyId</Code>" "unknown access key"
raw "$U/bkt/a/b.txt"; want 403 "no Authorization"; body_has "<Code>AccessDenied</Code>" "no Authorization"
raw -X PUT -T "$dir/v1" "$U/bkt/unauth.txt"; want 403 "unauthenticated PutObject"
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:wrong-secret" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -T "$dir/v1" "$U/bkt/unauth.txt"
want 403 "PutObject with a wrong secret"
req -I "$U/bkt/unauth.txt"; want 404 "a refused PutObject stored the object"
raw --aws-sigv4 "aws:amz:us-east-1:s3" --user "$KEY:$SECRET" "$U/bkt/a/b.txt"
want 400 "no x-amz-content-sha256"; body_has "<Code>InvalidRequest</Code>" "no x-amz-content-sha256"

# --- ListObjectsV2: bkt now holds a/b.txt a/new.txt signed.txt; add some more
req -X DELETE "$U/bkt/signed.txt"; want 204 "DeleteObject signed.txt"
for k in a/c.txt a/d/e.txt a/d/f.txt b.txt c/x.txt; do req -T "$dir/v1" "$U/bkt/$k"; want 200 "PutObject $k"; done
all="a/b.txt a/c.txt a/d/e.txt a/d/f.txt a/new.txt b.txt c/x.txt"
req "$U/bkt?list-type=2"; want 200 "ListObjectsV2"
[[ "$(keys)" == "$all" ]] || fail "ListObjectsV2 keys '$(keys)', expected '$all'"
[[ "$(xml KeyCount)" == 7 && "$(xml IsTruncated)" == false ]] || fail "ListObjectsV2 KeyCount/IsTruncated: $(head -c 400 "$dir/b")"
req "$U/bkt?delimiter=%2F&list-type=2&prefix=a%2F"; want 200 "ListObjectsV2 prefix=a/ delimiter=/"
[[ "$(keys)" == "a/b.txt a/c.txt a/new.txt" ]] || fail "prefix=a/ delimiter=/ keys '$(keys)'"
[[ "$(prefixes)" == "a/d/" ]] || fail "prefix=a/ delimiter=/ common prefixes '$(prefixes)'"
req "$U/bkt?delimiter=%2F&list-type=2"; want 200 "ListObjectsV2 delimiter=/"
[[ "$(keys)" == "b.txt" ]] || fail "delimiter=/ keys '$(keys)'"
[[ "$(prefixes)" == "a/ c/" ]] || fail "delimiter=/ common prefixes '$(prefixes)'"
req "$U/bkt?list-type=2&prefix=a%2Fd%2F"; want 200 "ListObjectsV2 prefix=a/d/"
[[ "$(keys)" == "a/d/e.txt a/d/f.txt" && -z "$(prefixes)" ]] || fail "prefix=a/d/ keys '$(keys)' prefixes '$(prefixes)'"
req "$U/bkt?list-type=2&prefix=zzz"; want 200 "ListObjectsV2 prefix=zzz"
[[ -z "$(keys)" && "$(xml KeyCount)" == 0 ]] || fail "prefix=zzz lists '$(keys)'"
# paging with max-keys=1: continuation-token sorts before list-type and max-keys
got=""; token=""; pages=0
while :; do
  if [[ -z "$token" ]]; then req "$U/bkt?list-type=2&max-keys=1"
  else req "$U/bkt?continuation-token=$(urlencode "$token")&list-type=2&max-keys=1"; fi
  want 200 "ListObjectsV2 page $pages"
  pages=$((pages + 1)); (( pages <= 20 )) || fail "paging does not end"
  [[ "$(xml KeyCount)" == 1 ]] || fail "page $pages KeyCount $(xml KeyCount)"
  got="${got:+$got }$(keys)"
  if [[ "$(xml IsTruncated)" == true ]]; then
    token="$(xml NextContinuationToken)"; [[ -n "$token" ]] || fail "truncated page without NextContinuationToken"
  else
    [[ -z "$(xml NextContinuationToken)" ]] || fail "last page has a NextContinuationToken"
    break
  fi
done
[[ "$got" == "$all" && $pages == 7 ]] || fail "paging gave '$got' in $pages pages"
req "$U/bkt?list-type=2&start-after=a%2Fnew.txt"; want 200 "ListObjectsV2 start-after"
[[ "$(keys)" == "b.txt c/x.txt" ]] || fail "start-after=a/new.txt keys '$(keys)'"

# --- DeleteObject / DeleteObjects
req -X DELETE "$U/bkt/c/x.txt"; want 204 "DeleteObject"
req "$U/bkt/c/x.txt"; want 404 "GetObject after DeleteObject"; body_has "<Code>NoSuchKey</Code>" "GetObject after DeleteObject"
req -X DELETE "$U/bkt/c/x.txt"; want 204 "DeleteObject of a missing key"
printf '<?xml version="1.0" encoding="UTF-8"?><Delete><Object><Key>a/c.txt</Key></Object><Object><Key>a/d/e.txt</Key></Object><Object><Key>b.txt</Key></Object></Delete>' > "$dir/del.xml"
req -X POST -H "Content-MD5: $(md5b64 "$dir/del.xml")" --data-binary @"$dir/del.xml" "$U/bkt?delete="
want 200 "DeleteObjects"
for k in a/c.txt a/d/e.txt b.txt; do body_has "<Deleted><Key>$k</Key></Deleted>" "DeleteObjects result"; done
req "$U/bkt?list-type=2"; want 200 "ListObjectsV2 after DeleteObjects"
[[ "$(keys)" == "a/b.txt a/d/f.txt a/new.txt" ]] || fail "keys after DeleteObjects '$(keys)'"
req -X POST --data-binary @"$dir/del.xml" "$U/bkt?delete="; want 400 "DeleteObjects without Content-MD5"
req -X POST -H "Content-MD5: $(printf x | openssl dgst -md5 -binary | base64)" --data-binary @"$dir/del.xml" "$U/bkt?delete="
want 400 "DeleteObjects with a wrong Content-MD5"; body_has "<Code>BadDigest</Code>" "DeleteObjects with a wrong Content-MD5"

# --- virtual-hosted addressing: curl connects to 127.0.0.1 but sends and signs Host: bkt.localhost:PORT
V=(--connect-to "bkt.localhost:$port:127.0.0.1:$port")
req "${V[@]}" -v "http://bkt.localhost:$port/a/b.txt" 2> "$dir/v.log"; want 200 "virtual-hosted GetObject"
body_is "$dir/v2" "virtual-hosted GetObject"
grep -q "^> Host: bkt.localhost:$port" "$dir/v.log" || fail "curl did not send the virtual host: $(grep '^>' "$dir/v.log")"
grep -q "^> Authorization: AWS4-HMAC-SHA256 .*SignedHeaders=host;" "$dir/v.log" || fail "curl did not sign host"
req "${V[@]}" -T "$dir/v1" "http://bkt.localhost:$port/vh/put.txt"; want 200 "virtual-hosted PutObject"
req "$U/bkt/vh/put.txt"; want 200 "path-style GetObject of the virtual-hosted put"; body_is "$dir/v1" "virtual-hosted put"
req "${V[@]}" "http://bkt.localhost:$port/?list-type=2&prefix=vh%2F"; want 200 "virtual-hosted ListObjectsV2"
[[ "$(keys)" == "vh/put.txt" ]] || fail "virtual-hosted list '$(keys)'"

# --- a server with --fault slowdown=1 answers every request 503 SlowDown and does nothing
start_server slow --fault slowdown=1
S="http://127.0.0.1:$port"
req -X PUT "$S/bkt"; want 503 "CreateBucket under slowdown=1"; body_has "<Code>SlowDown</Code>" "slowdown"
req "$S/"; want 503 "ListBuckets under slowdown=1"; body_has "<Code>SlowDown</Code>" "slowdown"
[[ ! -e "$dir/slow/root/bkt" ]] || fail "a 503 SlowDown CreateBucket created the bucket"
raw "$S/"; want 403 "unauthenticated request under slowdown=1 (faults count authenticated requests only)"

# --- SIGTERM: the main server exits 0
kill -TERM "${pids[0]}"
set +e; wait "${pids[0]}"; rc=$?; set -e
pids=("${pids[@]:1}")
[[ $rc == 0 ]] || fail "server exit status $rc after SIGTERM"
echo "PASS: curl_sigv4"
