// The SigV4 signer against AWS's published vectors: the S3 examples of "Signature Calculations for
// the Authorization Header" (GET object with Range, PUT object, GET ?lifecycle, ListObjects) and
// cases of the generic aws-sig-v4-test-suite; plus the Authorization parser and URI encoding.
#include "io/s3/sigv4.h"

#include <gtest/gtest.h>

namespace omnigraph::io::s3 {
namespace {

constexpr const char* kEmptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

Credentials S3DocCredentials() { return {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""}; }
SigningScope S3DocScope() { return {"20130524", "us-east-1", "s3"}; }

TEST(SigV4Test, S3GetObjectWithRange) {
  SignableRequest r;
  r.method = "GET";
  r.encoded_path = "/test.txt";
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Range", "bytes=0-9"},
               {"x-amz-content-sha256", kEmptyHash},
               {"x-amz-date", "20130524T000000Z"}};
  r.payload_hash = kEmptyHash;
  std::string names;
  EXPECT_EQ(CanonicalRequest(r, &names),
            "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
            "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
            "x-amz-date:20130524T000000Z\n\nhost;range;x-amz-content-sha256;x-amz-date\n"
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(names, "host;range;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(Sha256Hex(CanonicalRequest(r, nullptr)),
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  EXPECT_EQ(Sign(S3DocCredentials(), S3DocScope(), "20130524T000000Z", r),
            "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  EXPECT_EQ(AuthorizationHeader(S3DocCredentials(), S3DocScope(), "20130524T000000Z", r),
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST(SigV4Test, S3PutObject) {
  const std::string body = "Welcome to Amazon S3.";
  SignableRequest r;
  r.method = "PUT";
  r.encoded_path = "/" + UriEncode("test$file.text", false);
  EXPECT_EQ(r.encoded_path, "/test%24file.text");
  r.payload_hash = Sha256Hex(body);
  EXPECT_EQ(r.payload_hash, "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"Date", "Fri, 24 May 2013 00:00:00 GMT"},
               {"x-amz-date", "20130524T000000Z"},
               {"x-amz-storage-class", "REDUCED_REDUNDANCY"},
               {"x-amz-content-sha256", r.payload_hash}};
  EXPECT_EQ(Sign(S3DocCredentials(), S3DocScope(), "20130524T000000Z", r),
            "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST(SigV4Test, S3GetBucketLifecycleAndListObjects) {
  SignableRequest r;
  r.method = "GET";
  r.encoded_path = "/";
  r.query = {{"lifecycle", ""}};
  r.headers = {{"Host", "examplebucket.s3.amazonaws.com"},
               {"x-amz-date", "20130524T000000Z"},
               {"x-amz-content-sha256", kEmptyHash}};
  r.payload_hash = kEmptyHash;
  EXPECT_EQ(Sign(S3DocCredentials(), S3DocScope(), "20130524T000000Z", r),
            "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
  r.query = {{"prefix", "J"}, {"max-keys", "2"}};  // sorted by the signer
  EXPECT_EQ(Sign(S3DocCredentials(), S3DocScope(), "20130524T000000Z", r),
            "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

// aws-sig-v4-test-suite: service "service", us-east-1, 2015-08-30T12:36:00Z.
SignableRequest SuiteRequest() {
  SignableRequest r;
  r.method = "GET";
  r.encoded_path = "/";
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  r.payload_hash = kEmptyHash;
  return r;
}
const Credentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
const SigningScope kSuiteScope{"20150830", "us-east-1", "service"};

TEST(SigV4Test, SuiteGetVanilla) {
  EXPECT_EQ(AuthorizationHeader(kSuite, kSuiteScope, "20150830T123600Z", SuiteRequest()),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST(SigV4Test, SuiteQueryOrderKeyCase) {
  SignableRequest r = SuiteRequest();
  r.query = {{"Param2", "value2"}, {"Param1", "value1"}};
  EXPECT_EQ(Sign(kSuite, kSuiteScope, "20150830T123600Z", r),
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

TEST(SigV4Test, SuiteHeaderValueTrim) {
  SignableRequest r = SuiteRequest();
  r.headers.push_back({"My-Header1", " value1"});
  r.headers.push_back({"My-Header2", " \"a   b   c\""});
  std::string names;
  const std::string canonical = CanonicalRequest(r, &names);
  EXPECT_NE(canonical.find("my-header2:\"a b c\"\n"), std::string::npos) << canonical;
  EXPECT_EQ(Sign(kSuite, kSuiteScope, "20150830T123600Z", r),
            "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736");
}

TEST(SigV4Test, ParseAuthorizationRoundTrip) {
  const std::string h = AuthorizationHeader(kSuite, kSuiteScope, "20150830T123600Z", SuiteRequest());
  auto p = ParseAuthorization(h);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->access_key_id, "AKIDEXAMPLE");
  EXPECT_EQ(p->scope.ToString(), kSuiteScope.ToString());
  EXPECT_EQ(p->signed_headers, (std::vector<std::string>{"host", "x-amz-date"}));
  EXPECT_EQ(p->signature, "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  for (const char* bad :
       {"", "AWS4-HMAC-SHA256", "Basic abc", "AWS4-HMAC-SHA256 Credential=a/b/c, SignedHeaders=h, Signature=x",
        "AWS4-HMAC-SHA256 Credential=AK/20150830/us-east-1/s3/aws4_request, SignedHeaders=host"}) {
    EXPECT_FALSE(ParseAuthorization(bad).ok()) << bad;
  }
}

TEST(SigV4Test, UriEncoding) {
  EXPECT_EQ(UriEncode("a b/c~d_e.f-g", false), "a%20b/c~d_e.f-g");
  EXPECT_EQ(UriEncode("a b/c", true), "a%20b%2Fc");
  EXPECT_EQ(UriEncode("\xC3\xA9+=&", true), "%C3%A9%2B%3D%26");
  EXPECT_EQ(*UriDecode("a%20b%2Fc+"), "a b/c+");
  EXPECT_FALSE(UriDecode("a%2").ok());
  EXPECT_FALSE(UriDecode("a%zz").ok());
  EXPECT_EQ(Md5Base64(""), "1B2M2Y8AsgTpgAmY7PhCfg==");
  EXPECT_EQ(Md5Hex("abc"), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(AmzDate(1440938160), "20150830T123600Z");
}

}  // namespace
}  // namespace omnigraph::io::s3
