// The CLI's usage errors (exit 2) and SIZE flag values (cli_util.h).
#include "cli/cli_util.h"

#include <gtest/gtest.h>

#include "common/error_codes.h"

namespace omnigraph::cli {
namespace {

TEST(CliUtil, UsageErrorsExitTwo) {
  Status u = UsageError("no graph given");
  EXPECT_EQ(u.code_string(), "usage_error");
  EXPECT_EQ(ExitCodeFor(u), kExitUsage);
  EXPECT_EQ(ExitCodeFor(AsUsageError(InvalidArgumentError("unknown load mode 'x'"))), kExitUsage);
  EXPECT_EQ(AsUsageError(InvalidArgumentError("m")).message(), "m");
  EXPECT_TRUE(AsUsageError(Status::Ok()).ok());
  EXPECT_EQ(ExitCodeFor(InvalidArgumentError("bad input")), kExitError);
  EXPECT_EQ(ExitCodeFor(PreconditionFailedError("moved")), kExitPrecondition);
  EXPECT_EQ(ExitCodeFor(Status::Ok()), kExitOk);
}

TEST(CliUtil, ParseSize) {
  EXPECT_EQ(*ParseSize("1"), 1u);
  EXPECT_EQ(*ParseSize("64"), 64u);
  EXPECT_EQ(*ParseSize("32M"), uint64_t{32} << 20);
  EXPECT_EQ(*ParseSize("2g"), uint64_t{2} << 30);
  EXPECT_EQ(*ParseSize("4k"), 4096u);
  EXPECT_EQ(*ParseSize("4KB"), 4096u);
  EXPECT_EQ(*ParseSize("4kib"), 4096u);
  EXPECT_EQ(*ParseSize(" 1t "), uint64_t{1} << 40);
  EXPECT_EQ(*ParseSize("100b"), 100u);
  for (const char* bad :
       {"0", "0k", "-5", "-1g", "", "k", "1.5g", "12x", "0x10", "99999999999999999999", "17179869184g", "1 2"}) {
    auto r = ParseSize(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(ExitCodeFor(r.status()), kExitUsage) << bad;
    EXPECT_NE(r.status().message().find("is not a size"), std::string::npos) << r.status().message();
  }
}

TEST(CliUtil, SizeValueIsACli11Transform) {
  CLI::App app;
  uint64_t size = 7;
  app.add_option("--size", size)->transform(SizeValue());
  const char* good[] = {"t", "--size", "2m"};
  app.parse(3, const_cast<char**>(good));
  EXPECT_EQ(size, uint64_t{2} << 20);
  for (const char* value : {"0", "-5", "1.5g"}) {
    const char* argv[] = {"t", "--size", value};
    EXPECT_THROW(app.parse(3, const_cast<char**>(argv)), CLI::ValidationError) << value;
  }
}

}  // namespace
}  // namespace omnigraph::cli
