// Renders an error Status that carries a SourceSpan the way the CLI prints compile errors
// (docs/language.md, "Lexical rules"): the code and message, the offending source line, and a caret
// line.
#pragma once

#include <string>
#include <string_view>

#include "omnigraph/status.h"

namespace omnigraph::compiler {

// Example (file "s.pg"):
//   error[S005]: @key names unknown property `nme`
//    --> s.pg:3:8
//     |
//   3 |   @key(nme)
//     |        ^^^
// Without a span (or with a line outside `source`) only the first line (and location) is printed.
// Columns count Unicode code points as the lexer does; tabs in the source line are kept in the
// caret line so the caret stays aligned. The echoed line is made safe for a terminal: control
// bytes and invalid UTF-8 bytes are shown as \xNN, C1 controls and bidirectional overrides as
// \u{NNNN} (the carets widen to match), and a line longer than 200 code points is cut to a
// window of 200 around the span, marked with "…". A span over several lines underlines to the end of its
// first line. `file` overrides the span's file when non-empty. Pure; thread-safe.
std::string RenderDiagnostic(const Status& status, std::string_view source, std::string_view file = "");

}  // namespace omnigraph::compiler
