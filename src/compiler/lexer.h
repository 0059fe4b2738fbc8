// The one lexer of the .pg schema and .gq query languages (docs/language.md, "Lexical rules"):
// identifiers, TypeNames, $variables, numbers, strings with escapes, punctuation, comments, and
// exact 1-based line:column spans. Keywords are not special here: they arrive as kIdent / kTypeName
// tokens and each parser matches their text.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error_codes.h"
#include "omnigraph/result.h"
#include "omnigraph/status.h"

namespace omnigraph::compiler {

enum class TokenKind : uint8_t {
  kEnd = 0,   // end of input (always the last token)
  kIdent,     // [a-z_][A-Za-z0-9_]*           text = the identifier
  kTypeName,  // [A-Z][A-Za-z0-9_]*            text = the name
  kVariable,  // "$" [A-Za-z_][A-Za-z0-9_]*    text = the name WITHOUT '$' ("_" for "$_")
  kInt,       // [0-9]+ (no sign)              text = the digits
  kFloat,     // [0-9]+ ("." [0-9]+)? ([eE][+-]?[0-9]+)? with a fraction or an exponent (no sign),
              // finite as a double (else a lex error)  text = the spelling
  kString,    // "..."                          text = the DECODED value (UTF-8)
  kLBrace,    // {
  kRBrace,    // }
  kLParen,    // (
  kRParen,    // )
  kLBracket,  // [
  kRBracket,  // ]
  kColon,     // :
  kComma,     // ,
  kQuestion,  // ?
  kAt,        // @
  kDot,       // .
  kDotDot,    // ..
  kArrow,     // ->
  kMinus,     // -   (negative literals are built by the PARSER: kMinus then kInt/kFloat)
  kStar,      // *
  kLt,        // <
  kGt,        // >
  kLe,        // <=
  kGe,        // >=
  kEq,        // =
  kNe,        // !=
};

// One token. Positions are 1-based; columns count Unicode code points (a tab is one column).
// [line:column, end_line:end_column) is half-open: end_column is the column just past the last
// character. offset/end_offset are the byte range [offset, end_offset) in the source.
struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;
  uint32_t line = 1;
  uint32_t column = 1;
  uint32_t end_line = 1;
  uint32_t end_column = 1;
  uint32_t offset = 0;
  uint32_t end_offset = 0;

  SourceSpan span() const { return SourceSpan{"", line, column, end_line, end_column}; }
  bool Is(TokenKind k) const { return kind == k; }
  // True for a kIdent or kTypeName token spelled exactly `word` (keyword test).
  bool IsWord(std::string_view word) const {
    return (kind == TokenKind::kIdent || kind == TokenKind::kTypeName) && text == word;
  }
};

// Limits; exceeding one is a lex error (the language's parse code) naming the limit.
struct LexLimits {
  size_t max_source_bytes = 16u << 20;  // 16 MiB
  size_t max_identifier_bytes = 256;    // identifiers, TypeNames, variable names
  size_t max_number_bytes = 64;         // spelling of one number
  size_t max_string_bytes = 1u << 20;   // decoded string literal
  size_t max_tokens = 4u << 20;         // tokens per source, incl. kEnd
};

// Which language is being lexed: chooses the error code of lex errors (S000 for schemas, Q000 for
// queries), so lex and parse errors of one file share a code.
enum class SourceLanguage : uint8_t { kSchema, kQuery };

inline ErrorCode ParseErrorCode(SourceLanguage lang) {
  return lang == SourceLanguage::kSchema ? ErrorCode::kSchemaParse : ErrorCode::kQueryParse;
}

// Splits `source` into tokens ending with one kEnd token (whose span is the position just past the
// last character). Skips whitespace, `// ...` line comments and `/* ... */` block comments (not
// nested). String escapes: \" \\ \n \t \r \0 and \u{X..} (1-6 hex digits, a Unicode scalar value);
// raw newlines inside a string are allowed and kept. Errors (code ParseErrorCode(lang), span at the
// offending character): invalid UTF-8, unexpected character (e.g. `#`, lone `!`), unterminated
// string or block comment, bad escape, identifier/number/string/source/token-count over `limits`.
// Pure; thread-safe. Never throws.
Result<std::vector<Token>> Tokenize(std::string_view source, SourceLanguage lang,
                                    const LexLimits& limits = LexLimits());

// "`{`", "identifier `foo`", "type name `Person`", "variable `$x`", "integer `12`", "string",
// "end of input": how a token is named in "expected X, found Y" messages.
std::string DescribeToken(const Token& token);
// "`{`", "identifier", "type name", ...: how a token kind is named in "expected ..." lists.
std::string_view TokenKindName(TokenKind kind);

// Makes the error status of a parser: `Status(ParseErrorCode(lang), message)` with `token`'s span.
Status ParseErrorAt(SourceLanguage lang, const Token& token, std::string message);

}  // namespace omnigraph::compiler
