// libFuzzer target for policy files and policy test files (policy/policy.h): any input must parse
// or fail with a typed InvalidArgument error (never crash, hang or throw); a bundle that parses
// answers every action on protected, unprotected and absent branches, a denial names no rule and
// an allowance names one of the bundle's rules. Built when OG_BUILD_FUZZ is ON (clang,
// -fsanitize=fuzzer); seeds: tests/fuzz/policy.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "omnigraph/status.h"
#include "policy/policy.h"

namespace {

using omnigraph::StatusCode;
namespace policy = omnigraph::policy;

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto tests = policy::ParsePolicyTests(text, "fuzz.tests.yaml");
  if (!tests.ok()) Check(tests.status().category() == StatusCode::kInvalidArgument);
  auto bundle = policy::ParsePolicyBundle(text, "fuzz.policy.yaml");
  if (!bundle.ok()) {
    Check(bundle.status().category() == StatusCode::kInvalidArgument);
    return 0;
  }
  for (policy::PolicyAction action : policy::AllPolicyActions()) {
    for (const std::optional<std::string>& branch :
         {std::optional<std::string>(), std::optional<std::string>("main"), std::optional<std::string>("x")}) {
      for (const auto& [group, actors] : bundle->groups) {
        for (const std::string& actor : actors) {
          policy::PolicyRequest req{actor, action, branch, branch};
          policy::PolicyDecision d = policy::Decide(*bundle, req);
          Check(d.allowed == d.matched_rule_id.has_value());
          if (d.matched_rule_id) {
            bool known = false;
            for (const auto& r : bundle->rules) known = known || r.id == *d.matched_rule_id;
            Check(known);
          }
        }
      }
    }
  }
  if (tests.ok()) (void)policy::RunPolicyTests(*bundle, *tests);
  return 0;
}
