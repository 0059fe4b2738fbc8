// Loading one YAML document safely with yaml-cpp (header-only; include it only from code that links
// yaml-cpp). yaml-cpp 0.7 (Debian 12) has two traps: `YAML::LoadAll` never returns on inputs as
// small as ",", and `YAML::Load` silently drops whatever follows the first root node (a flow
// mapping on line 1 and a block key on line 2: the key is lost). The functions here find a second
// document by its marker and check that the parser has nothing left
// after the first document. Callers check FirstInvalidUtf8 (common/utf8.h), SecondYamlDocumentLine
// and ContentAfterFirstYamlDocument, then build the node with `YAML::Load`.
#pragma once

#include <cstddef>
#include <sstream>
#include <string>
#include <string_view>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

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

namespace internal {

// Ignores every event: the parser is only run to see where the first document ends.
class IgnoreYamlEvents : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

}  // namespace internal

// Whether yaml-cpp's parser has tokens left after the first document of `text`: `YAML::Load` would
// silently drop them. Throws YAML::Exception on a syntax error (call it inside the same try as Load).
inline bool ContentAfterFirstYamlDocument(std::string_view text) {
  std::stringstream in{std::string(text)};
  YAML::Parser parser(in);
  internal::IgnoreYamlEvents ignore;
  parser.HandleNextDocument(ignore);
  return static_cast<bool>(parser);
}

}  // namespace omnigraph
