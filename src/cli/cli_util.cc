#include "cli/cli_util.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>

#include "common/error_codes.h"
#include "common/json.h"

namespace omnigraph::cli {

Status UsageError(std::string message) { return Status(ErrorCode::kUsage, std::move(message)); }

Status AsUsageError(const Status& status) {
  if (status.ok()) return status;
  return UsageError(status.message());
}

Result<uint64_t> ParseSize(std::string_view text) {
  auto bad = [&](std::string why) {
    return UsageError("'" + std::string(text) + "' is not a size: " + why +
                      " (a positive number of bytes, optionally with k, m, g or t)");
  };
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  if (t.empty()) return bad("empty");
  if (t.front() == '-') return bad("negative");
  if (t.front() == '+') t.remove_prefix(1);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) return bad("no number");
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + digits, n);
  if (ec != std::errc() || p != t.data() + digits) return bad("too large");
  std::string unit;
  for (char c : t.substr(digits)) {
    if (!std::isspace(static_cast<unsigned char>(c)))
      unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();     // "kb", "b"
  if (unit.size() == 2 && unit.back() == 'i') unit.pop_back();  // "kib" -> "k"
  int shift = 0;
  if (unit.empty())
    shift = 0;
  else if (unit == "k")
    shift = 10;
  else if (unit == "m")
    shift = 20;
  else if (unit == "g")
    shift = 30;
  else if (unit == "t")
    shift = 40;
  else
    return bad("unknown unit '" + std::string(t.substr(digits)) + "'");
  if (n == 0) return bad("zero");
  if (shift > 0 && n > (UINT64_MAX >> shift)) return bad("too large");
  return n << shift;
}

CLI::Validator SizeValue() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        auto n = ParseSize(value);
        if (!n.ok()) return n.status().message();
        value = std::to_string(*n);
        return std::string();
      },
      "SIZE", "SizeValue");
}

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  if (status.code() == ErrorCode::kUsage) return kExitUsage;
  if (status.category() == StatusCode::kPreconditionFailed) return kExitPrecondition;
  return kExitError;
}

void PrintJson(const OrderedJson& j) { std::printf("%s\n", j.dump(2).c_str()); }

int ReportError(const Status& status, bool json) {
  if (status.ok()) return kExitOk;
  if (json) {
    // The shape of the Rust implementation's ErrorOutput ({error: message, code?, <details>...},
    // e.g. the `--if-commit` body {error, precondition_failure: {expected, actual}}), with our
    // category and the source span after.
    OrderedJson j = OrderedJson::object();
    j["error"] = status.message();
    j["code"] = std::string(status.code_string());
    if (!status.details().empty()) {  // structured data of the error, e.g. merge_conflicts
      // parsed keeping the order of its text (e.g. {expected, actual})
      OrderedJson d = OrderedJson::parse(status.details(), nullptr, /*allow_exceptions=*/false);
      if (d.is_object()) {
        for (auto it = d.begin(); it != d.end(); ++it) j[it.key()] = it.value();
      }
    }
    j["category"] = std::string(StatusCodeName(status.category()));
    if (status.span()) {
      j["span"] = {{"file", status.span()->file}, {"line", status.span()->line}, {"column", status.span()->column}};
    }
    PrintJson(j);
  } else {
    std::fprintf(stderr, "error[%.*s]: %s\n", static_cast<int>(status.code_string().size()),
                 status.code_string().data(), status.message().c_str());
    if (status.span()) {
      std::fprintf(stderr, "  --> %s%s%u:%u\n", status.span()->file.c_str(), status.span()->file.empty() ? "" : ":",
                   status.span()->line, status.span()->column);
    }
  }
  return ExitCodeFor(status);
}

}  // namespace omnigraph::cli
