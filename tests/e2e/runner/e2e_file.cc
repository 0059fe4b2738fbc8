#include "e2e_file.h"

#include <fstream>
#include <sstream>

#include "common/error_codes.h"

namespace omnigraph::e2e {

Result<TestFile> ParseTestFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFoundError("cannot read test file " + path);
  TestFile f;
  f.path = path;
  size_t slash = path.rfind('/');
  f.dir = slash == std::string::npos ? "." : path.substr(0, slash);
  std::string line;
  int n = 0;
  Record* cur = nullptr;
  bool in_expected = false;
  std::vector<std::string> body;
  auto finish = [&] {
    if (cur != nullptr) {
      std::string joined;
      for (size_t i = 0; i < body.size(); ++i) joined += (i ? "\n" : "") + body[i];
      cur->body = joined;
    }
    cur = nullptr;
    in_expected = false;
    body.clear();
  };
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      finish();
      continue;
    }
    if (line[0] == '#') continue;
    if (cur == nullptr) {
      f.records.push_back(Record{});
      cur = &f.records.back();
      cur->line = n;
      cur->directive = line;
      std::istringstream ws(line);
      for (std::string w; ws >> w;) cur->words.push_back(w);
      continue;
    }
    if (!in_expected && line == "----") {
      in_expected = true;
      cur->expected.emplace();
      continue;
    }
    if (in_expected)
      cur->expected->push_back(line);
    else
      body.push_back(line);
  }
  finish();
  return f;
}

std::string RenderTestFile(const TestFile& f) {
  // Comments are not preserved by the parser, so --rewrite only appends to files it is told to.
  std::string out;
  for (size_t i = 0; i < f.records.size(); ++i) {
    const Record& r = f.records[i];
    if (i) out += "\n";
    out += r.directive + "\n";
    if (!r.body.empty()) out += r.body + "\n";
    if (r.expected) {
      out += "----\n";
      for (const auto& l : *r.expected) out += l + "\n";
    }
  }
  return out;
}

}  // namespace omnigraph::e2e
