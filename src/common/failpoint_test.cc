#include <gtest/gtest.h>

#include "common/error_codes.h"
#include "common/failpoint.h"

namespace omnigraph {
namespace {

Status Guarded() {
  OG_RETURN_IF_ERROR(OG_FAILPOINT("common.test_point"));
  return Status::Ok();
}

#if defined(OG_FAILPOINTS_ENABLED)
TEST(FailpointTest, InjectsErrorOnNthHit) {
  ScopedFailpoints scope;
  ASSERT_TRUE(FailpointRegistry::Global().ArmError("common.test_point", IoError("boom"), 2).ok());
  EXPECT_TRUE(Guarded().ok());
  Status s = Guarded();
  EXPECT_EQ(s.message(), "boom");
  EXPECT_TRUE(Guarded().ok());
  EXPECT_EQ(FailpointRegistry::Global().HitCount("common.test_point"), 3u);
}

TEST(FailpointTest, CallbackAndDisarm) {
  ScopedFailpoints scope;
  int calls = 0;
  FailpointRegistry::Action a;
  a.fn = [&] {
    ++calls;
    return Status::Ok();
  };
  ASSERT_TRUE(FailpointRegistry::Global().Arm("common.test_point", a).ok());
  EXPECT_TRUE(Guarded().ok());
  FailpointRegistry::Global().Disarm("common.test_point");
  EXPECT_TRUE(Guarded().ok());
  EXPECT_EQ(calls, 1);
}
#endif

TEST(FailpointTest, UnknownNamesAreRejected) {
  Status s = FailpointRegistry::Global().ArmError("no.such.point", IoError("x"));
  EXPECT_EQ(s.category(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Guarded().ok());
}

}  // namespace
}  // namespace omnigraph
