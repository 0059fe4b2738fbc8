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

int ReportError(const Status& status, bool json) {
  if (status.ok()) return kExitOk;
  if (json) {
    Json j = {{"ok", false},
              {"error",
               {{"code", std::string(status.code_string())},
                {"category", std::string(StatusCodeName(status.category()))},
                {"message", status.message()}}}};
    if (status.span()) {
      j["error"]["span"] = {
          {"file", status.span()->file}, {"line", status.span()->line}, {"column", status.span()->column}};
    }
    if (!status.details().empty()) {  // structured data of the error, e.g. merge_conflicts
      auto d = ParseJson(status.details(), "error details");
      if (d.ok() && d->is_object()) {
        for (auto it = d->begin(); it != d->end(); ++it) j[it.key()] = it.value();
      }
    }
    std::printf("%s\n", CanonicalJson(j).c_str());
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
