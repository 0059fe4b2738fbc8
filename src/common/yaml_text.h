// Text-level checks made before a YAML file is handed to yaml-cpp. yaml-cpp 0.7 (Debian 12) loops
// forever in `YAML::LoadAll` on inputs as small as ",", so callers parse ONE document with
// `YAML::Load` and find further documents here: a line starting with `---` or `...` (followed by
// nothing or a blank) is always a document marker in YAML, even inside quoted or block scalars.
#pragma once

#include <cstddef>
#include <string_view>

namespace omnigraph {

// The 1-based line of the marker that starts a second document of `text`, or 0 when it holds at
// most one document. Comments, blank lines and directives (`%...`) before the first document's
// content do not count as content; a `...` end marker followed only by comments is not a second
// document.
inline size_t SecondYamlDocumentLine(std::string_view text) {
  auto is_marker = [](std::string_view line, std::string_view m) {
    return line.substr(0, 3) == m && (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
  };
  auto is_blank_or_comment = [](std::string_view line) {
    size_t i = line.find_first_not_of(" \t\r");
    return i == std::string_view::npos || line[i] == '#';
  };
  bool content = false;  // the current document has content (or an explicit start marker)
  bool ended = false;    // a `...` closed it
  size_t line_no = 0;
  while (!text.empty()) {
    ++line_no;
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (is_marker(line, "---")) {
      if (content || ended) return line_no;
      content = true;
      continue;
    }
    if (is_marker(line, "...")) {
      ended = true;
      continue;
    }
    if (is_blank_or_comment(line) || (!content && line.substr(0, 1) == "%")) continue;
    if (ended) return line_no;
    content = true;
  }
  return 0;
}

}  // namespace omnigraph
