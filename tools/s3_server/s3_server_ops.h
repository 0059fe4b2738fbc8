// The S3 operations of the test server: which operation an authenticated request names (method,
// bucket, key, subresources) and running it against the Store. Anything outside the implemented
// subset is NotImplemented, naming what was asked. Thread-safe (the Store is).
#pragma once

#include <httplib.h>

#include <string>

#include "omnigraph/result.h"
#include "s3_server/s3_server_request.h"
#include "s3_server/s3_server_store.h"

namespace omnigraph::s3server {

class Operations {
 public:
  explicit Operations(Store* store) : store_(store) {}

  // Runs the operation `request` names. On success sets the response's status, headers and body;
  // on failure returns an S3Failure status (and may have set error headers, e.g. Content-Range
  // for InvalidRange) and the caller writes the error body.
  Status Run(const S3Request& request, httplib::Response* response);

 private:
  Status RunBucket(const S3Request& request, httplib::Response* response);
  Status RunObject(const S3Request& request, httplib::Response* response);

  Status ListBuckets(httplib::Response* response);
  Status CreateBucket(const S3Request& request, httplib::Response* response);
  Status HeadBucket(const S3Request& request, httplib::Response* response);
  Status ListObjectsV2(const S3Request& request, httplib::Response* response);
  Status DeleteObjects(const S3Request& request, httplib::Response* response);

  Status PutObject(const S3Request& request, httplib::Response* response);
  Status GetObject(const S3Request& request, httplib::Response* response);  // GET and HEAD
  Status DeleteObject(const S3Request& request, httplib::Response* response);

  Status CreateMultipartUpload(const S3Request& request, httplib::Response* response);
  Status UploadPart(const S3Request& request, httplib::Response* response);
  Status CompleteMultipartUpload(const S3Request& request, httplib::Response* response);
  Status AbortMultipartUpload(const S3Request& request, httplib::Response* response);

  Store* const store_;
};

}  // namespace omnigraph::s3server
