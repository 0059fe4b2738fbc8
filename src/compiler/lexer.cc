#include "compiler/lexer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace omnigraph::compiler {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsIdentChar(char c) { return IsDigit(c) || IsLower(c) || IsUpper(c) || c == '_'; }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Length of the valid UTF-8 sequence at s[i], or 0 if invalid.
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)) return 0;
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

class LexerImpl {
 public:
  LexerImpl(std::string_view src, SourceLanguage lang, const LexLimits& limits)
      : src_(src), lang_(lang), limits_(limits) {}

  Result<std::vector<Token>> Run() {
    if (src_.size() > limits_.max_source_bytes) {
      return Error("source is " + std::to_string(src_.size()) + " bytes, over the limit of " +
                   std::to_string(limits_.max_source_bytes));
    }
    std::vector<Token> out;
    while (true) {
      OG_RETURN_IF_ERROR(SkipTrivia());
      if (out.size() + 1 >= limits_.max_tokens && pos_ < src_.size()) {
        return Error("more than " + std::to_string(limits_.max_tokens) + " tokens");
      }
      Token t;
      StartToken(&t);
      if (pos_ >= src_.size()) {
        t.kind = TokenKind::kEnd;
        EndToken(&t);
        out.push_back(std::move(t));
        return out;
      }
      OG_RETURN_IF_ERROR(LexOne(&t));
      EndToken(&t);
      out.push_back(std::move(t));
    }
  }

 private:
  Status Error(std::string msg) const {
    return Status(ParseErrorCode(lang_), std::move(msg)).WithSpan(SourceSpan{"", line_, col_, line_, col_ + 1});
  }
  Status ErrorAt(uint32_t line, uint32_t col, std::string msg) const {
    return Status(ParseErrorCode(lang_), std::move(msg))
        .WithSpan(SourceSpan{"", line, col, line_, col_ > col || line_ > line ? col_ : col + 1});
  }

  char Peek(size_t k = 0) const { return pos_ + k < src_.size() ? src_[pos_ + k] : '\0'; }
  bool AtEnd() const { return pos_ >= src_.size(); }

  // Advances over one (valid) code point, updating line/column.
  Status Advance() {
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      col_ = 1;
      return Status::Ok();
    }
    size_t n = Utf8SequenceLength(src_, pos_);
    if (n == 0) return Error("invalid UTF-8 byte in source");
    pos_ += n;
    ++col_;
    return Status::Ok();
  }

  void StartToken(Token* t) const {
    t->line = line_;
    t->column = col_;
    t->offset = static_cast<uint32_t>(pos_);
  }
  void EndToken(Token* t) const {
    t->end_line = line_;
    t->end_column = col_;
    t->end_offset = static_cast<uint32_t>(pos_);
  }

  Status SkipTrivia() {
    while (!AtEnd()) {
      char c = Peek();
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
        OG_RETURN_IF_ERROR(Advance());
      } else if (c == '/' && Peek(1) == '/') {
        while (!AtEnd() && Peek() != '\n') OG_RETURN_IF_ERROR(Advance());
      } else if (c == '/' && Peek(1) == '*') {
        uint32_t l = line_, co = col_;
        pos_ += 2;
        col_ += 2;
        bool closed = false;
        while (!AtEnd()) {
          if (Peek() == '*' && Peek(1) == '/') {
            pos_ += 2;
            col_ += 2;
            closed = true;
            break;
          }
          OG_RETURN_IF_ERROR(Advance());
        }
        if (!closed) {
          return Status(ParseErrorCode(lang_), "unterminated block comment").WithSpan(SourceSpan{"", l, co, l, co + 2});
        }
      } else {
        return Status::Ok();
      }
    }
    return Status::Ok();
  }

  void Single(Token* t, TokenKind k, size_t len = 1) {
    t->kind = k;
    pos_ += len;
    col_ += static_cast<uint32_t>(len);
  }

  Status LexWord(Token* t, size_t max_len, std::string_view what) {
    size_t start = pos_;
    while (!AtEnd() && IsIdentChar(Peek())) {
      ++pos_;
      ++col_;
    }
    if (pos_ - start > max_len) {
      return ErrorAt(t->line, t->column, std::string(what) + " is longer than " + std::to_string(max_len) + " bytes");
    }
    t->text.assign(src_.substr(start, pos_ - start));
    return Status::Ok();
  }

  Status LexNumber(Token* t) {
    size_t start = pos_;
    auto digits = [&] {
      while (!AtEnd() && IsDigit(Peek())) {
        ++pos_;
        ++col_;
      }
    };
    digits();
    t->kind = TokenKind::kInt;
    if (Peek() == '.' && IsDigit(Peek(1))) {
      t->kind = TokenKind::kFloat;
      ++pos_;
      ++col_;
      digits();
    }
    // An exponent makes a float, with or without a fraction ("1e5" as in JSON).
    char e = Peek();
    if ((e == 'e' || e == 'E') && (IsDigit(Peek(1)) || ((Peek(1) == '+' || Peek(1) == '-') && IsDigit(Peek(2))))) {
      t->kind = TokenKind::kFloat;
      pos_ += 2;
      col_ += 2;
      digits();
    }
    if (pos_ - start > limits_.max_number_bytes) {
      return ErrorAt(t->line, t->column,
                     "number is longer than " + std::to_string(limits_.max_number_bytes) + " bytes");
    }
    t->text.assign(src_.substr(start, pos_ - start));
    if (t->kind == TokenKind::kFloat) {
      // A float must be a finite double: "1e999" would silently become infinity.
      const double d = std::strtod(t->text.c_str(), nullptr);
      if (!std::isfinite(d)) {
        return ErrorAt(
            t->line, t->column,
            "number `" + t->text + "` is out of range (floats are 64-bit: at most about 1.8e308 in magnitude)");
      }
    }
    return Status::Ok();
  }

  Status LexString(Token* t) {
    t->kind = TokenKind::kString;
    ++pos_;
    ++col_;  // opening quote
    std::string& out = t->text;
    while (true) {
      if (AtEnd()) return ErrorAt(t->line, t->column, "unterminated string literal");
      if (out.size() > limits_.max_string_bytes) {
        return ErrorAt(t->line, t->column,
                       "string literal is longer than " + std::to_string(limits_.max_string_bytes) + " bytes");
      }
      char c = Peek();
      if (c == '"') {
        ++pos_;
        ++col_;
        return Status::Ok();
      }
      if (c != '\\') {
        size_t before = pos_;
        OG_RETURN_IF_ERROR(Advance());
        out.append(src_.substr(before, pos_ - before));
        continue;
      }
      uint32_t el = line_, ec = col_;
      char n = Peek(1);
      switch (n) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case '0': out.push_back('\0'); break;
        case 'u': {
          pos_ += 2;
          col_ += 2;
          if (Peek() != '{') return ErrorAt(el, ec, "expected `{` after `\\u` in string escape");
          ++pos_;
          ++col_;
          uint32_t cp = 0;
          int nd = 0;
          while (IsHex(Peek())) {
            char h = Peek();
            int v = IsDigit(h) ? h - '0' : (h | 0x20) - 'a' + 10;
            cp = cp * 16 + static_cast<uint32_t>(v);
            ++nd;
            ++pos_;
            ++col_;
            if (nd > 6) return ErrorAt(el, ec, "more than 6 hex digits in `\\u{...}` escape");
          }
          if (nd == 0 || Peek() != '}') {
            return ErrorAt(el, ec, "malformed `\\u{...}` escape: expected hex digits and `}`");
          }
          ++pos_;
          ++col_;
          if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            return ErrorAt(el, ec, "`\\u{...}` escape is not a Unicode scalar value");
          }
          AppendUtf8(cp, &out);
          continue;
        }
        default:
          return Error(std::string("unknown escape `\\") + (AtEnd() || n == '\0' ? std::string() : std::string(1, n)) +
                       "` in string (allowed: \\\" \\\\ \\n \\t \\r \\0 \\u{...})");
      }
      pos_ += 2;
      col_ += 2;
    }
  }

  Status LexOne(Token* t) {
    char c = Peek();
    if (IsLower(c) || c == '_') {
      t->kind = TokenKind::kIdent;
      return LexWord(t, limits_.max_identifier_bytes, "identifier");
    }
    if (IsUpper(c)) {
      t->kind = TokenKind::kTypeName;
      return LexWord(t, limits_.max_identifier_bytes, "type name");
    }
    if (IsDigit(c)) return LexNumber(t);
    if (c == '"') return LexString(t);
    if (c == '$') {
      char n = Peek(1);
      if (!(IsLower(n) || IsUpper(n) || n == '_')) {
        return Error("expected a variable name after `$`");
      }
      ++pos_;
      ++col_;
      t->kind = TokenKind::kVariable;
      return LexWord(t, limits_.max_identifier_bytes, "variable name");
    }
    switch (c) {
      case '{': Single(t, TokenKind::kLBrace); return Status::Ok();
      case '}': Single(t, TokenKind::kRBrace); return Status::Ok();
      case '(': Single(t, TokenKind::kLParen); return Status::Ok();
      case ')': Single(t, TokenKind::kRParen); return Status::Ok();
      case '[': Single(t, TokenKind::kLBracket); return Status::Ok();
      case ']': Single(t, TokenKind::kRBracket); return Status::Ok();
      case ':': Single(t, TokenKind::kColon); return Status::Ok();
      case ',': Single(t, TokenKind::kComma); return Status::Ok();
      case '?': Single(t, TokenKind::kQuestion); return Status::Ok();
      case '@': Single(t, TokenKind::kAt); return Status::Ok();
      case '*': Single(t, TokenKind::kStar); return Status::Ok();
      case '=': Single(t, TokenKind::kEq); return Status::Ok();
      case '.':
        if (Peek(1) == '.') {
          Single(t, TokenKind::kDotDot, 2);
        } else {
          Single(t, TokenKind::kDot);
        }
        return Status::Ok();
      case '-':
        if (Peek(1) == '>') {
          Single(t, TokenKind::kArrow, 2);
        } else {
          Single(t, TokenKind::kMinus);
        }
        return Status::Ok();
      case '<':
        if (Peek(1) == '=') {
          Single(t, TokenKind::kLe, 2);
        } else {
          Single(t, TokenKind::kLt);
        }
        return Status::Ok();
      case '>':
        if (Peek(1) == '=') {
          Single(t, TokenKind::kGe, 2);
        } else {
          Single(t, TokenKind::kGt);
        }
        return Status::Ok();
      case '!':
        if (Peek(1) == '=') {
          Single(t, TokenKind::kNe, 2);
          return Status::Ok();
        }
        return Error("unexpected character `!` (did you mean `!=`?)");
      default: break;
    }
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t n = Utf8SequenceLength(src_, pos_);
      if (n == 0) return Error("invalid UTF-8 byte in source");
      // Named by its code point; shown too unless it is a C1 control or a bidirectional control,
      // which would reorder or hide the rest of the message on a terminal.
      const std::string_view raw = src_.substr(pos_, n);
      uint32_t cp = static_cast<unsigned char>(raw[0]) & (0x7f >> n);
      for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(raw[k]) & 0x3f);
      char name[16];
      std::snprintf(name, sizeof(name), "U+%04X", static_cast<unsigned>(cp));
      const bool hidden = (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
                          (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
      return Error("unexpected character " +
                   (hidden ? std::string(name) : "`" + std::string(raw) + "` (" + name + ")") +
                   " outside a string or comment");
    }
    if (c == '#') return Error("unexpected character `#` (comments are `//` or `/* */`)");
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return Error("unexpected control character (byte " + std::to_string(static_cast<unsigned char>(c)) + ")");
    }
    return Error(std::string("unexpected character `") + c + "`");
  }

  std::string_view src_;
  SourceLanguage lang_;
  const LexLimits& limits_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  uint32_t col_ = 1;
};

}  // namespace

Result<std::vector<Token>> Tokenize(std::string_view source, SourceLanguage lang, const LexLimits& limits) {
  return LexerImpl(source, lang, limits).Run();
}

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kEnd: return "end of input";
    case TokenKind::kIdent: return "identifier";
    case TokenKind::kTypeName: return "type name";
    case TokenKind::kVariable: return "variable";
    case TokenKind::kInt: return "integer";
    case TokenKind::kFloat: return "float";
    case TokenKind::kString: return "string";
    case TokenKind::kLBrace: return "`{`";
    case TokenKind::kRBrace: return "`}`";
    case TokenKind::kLParen: return "`(`";
    case TokenKind::kRParen: return "`)`";
    case TokenKind::kLBracket: return "`[`";
    case TokenKind::kRBracket: return "`]`";
    case TokenKind::kColon: return "`:`";
    case TokenKind::kComma: return "`,`";
    case TokenKind::kQuestion: return "`?`";
    case TokenKind::kAt: return "`@`";
    case TokenKind::kDot: return "`.`";
    case TokenKind::kDotDot: return "`..`";
    case TokenKind::kArrow: return "`->`";
    case TokenKind::kMinus: return "`-`";
    case TokenKind::kStar: return "`*`";
    case TokenKind::kLt: return "`<`";
    case TokenKind::kGt: return "`>`";
    case TokenKind::kLe: return "`<=`";
    case TokenKind::kGe: return "`>=`";
    case TokenKind::kEq: return "`=`";
    case TokenKind::kNe: return "`!=`";
  }
  return "token";
}

std::string DescribeToken(const Token& token) {
  switch (token.kind) {
    case TokenKind::kIdent: return "identifier `" + token.text + "`";
    case TokenKind::kTypeName: return "type name `" + token.text + "`";
    case TokenKind::kVariable: return "variable `$" + token.text + "`";
    case TokenKind::kInt: return "integer `" + token.text + "`";
    case TokenKind::kFloat: return "float `" + token.text + "`";
    case TokenKind::kString: return "string literal";
    default: return std::string(TokenKindName(token.kind));
  }
}

Status ParseErrorAt(SourceLanguage lang, const Token& token, std::string message) {
  return Status(ParseErrorCode(lang), std::move(message)).WithSpan(token.span());
}

}  // namespace omnigraph::compiler
