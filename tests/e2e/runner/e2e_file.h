// The end-to-end test file format (tests/e2e/README.md; docs/architecture.md, "Code conventions"):
// records separated by blank lines; the first line of a record is its directive, then its body,
// then optionally `----` and the expected output. Lines starting with `#` are comments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "omnigraph/result.h"

namespace omnigraph::e2e {

struct Record {
  int line = 0;                                      // 1-based line of the directive
  std::string directive;                             // the whole first line
  std::vector<std::string> words;                    // the directive split on spaces
  std::string body;                                  // lines joined with '\n' (no trailing newline)
  std::optional<std::vector<std::string>> expected;  // lines after `----`
};

struct TestFile {
  std::string path;
  std::string dir;  // for `file <path>` bodies
  std::vector<Record> records;
};

Result<TestFile> ParseTestFile(const std::string& path);
// Re-renders a test file (for --rewrite).
std::string RenderTestFile(const TestFile& file);

}  // namespace omnigraph::e2e
