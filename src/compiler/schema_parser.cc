#include "compiler/schema_parser.h"

#include <limits>
#include <string>
#include <utility>

namespace omnigraph::compiler {
namespace {

constexpr SourceLanguage kLang = SourceLanguage::kSchema;

SourceSpan Join(const SourceSpan& a, const SourceSpan& b) {
  return SourceSpan{a.file, a.line, a.column, b.end_line, b.end_column};
}

// Saturating decimal parse of the digits of an INT token.
uint64_t ParseU64Saturated(const std::string& digits) {
  uint64_t v = 0;
  for (char c : digits) {
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) {
      return std::numeric_limits<uint64_t>::max();
    }
    v = v * 10 + d;
  }
  return v;
}

bool IsScalarName(std::string_view s) {
  static constexpr std::string_view kNames[] = {"String", "Blob", "Bool", "I32",  "I64",     "U32",
                                                "U64",    "F32",  "F64",  "Date", "DateTime"};
  for (auto n : kNames) {
    if (n == s) return true;
  }
  return false;
}

constexpr std::string_view kScalarList = "String, Blob, Bool, I32, I64, U32, U64, F32, F64, Date, DateTime";

class SchemaParser {
 public:
  SchemaParser(std::vector<Token> toks, const SchemaParseLimits& limits) : toks_(std::move(toks)), limits_(limits) {}

  Result<AstSchema> Run() {
    AstSchema out;
    size_t decls = 0;     // all declarations (for the limit)
    uint32_t tables = 0;  // node and edge declarations (their decl_index)
    while (!Cur().Is(TokenKind::kEnd)) {
      if (decls >= limits_.max_declarations) {
        return Fail("more than " + std::to_string(limits_.max_declarations) + " declarations");
      }
      ++decls;
      const Token& t = Cur();
      if (t.IsWord("interface")) {
        OG_ASSIGN_OR_RETURN(auto i, ParseInterface());
        out.interfaces.push_back(std::move(i));
      } else if (t.IsWord("node")) {
        OG_ASSIGN_OR_RETURN(auto n, ParseNode());
        n.decl_index = tables++;
        out.nodes.push_back(std::move(n));
      } else if (t.IsWord("edge")) {
        OG_ASSIGN_OR_RETURN(auto e, ParseEdge());
        e.decl_index = tables++;
        out.edges.push_back(std::move(e));
      } else {
        return Expected("`interface`, `node` or `edge`");
      }
    }
    return out;
  }

 private:
  const Token& Cur() const { return toks_[pos_]; }
  const Token& PeekTok(size_t k = 1) const { return toks_[pos_ + k < toks_.size() ? pos_ + k : toks_.size() - 1]; }
  const Token& Prev() const { return toks_[pos_ > 0 ? pos_ - 1 : 0]; }
  void Next() {
    if (pos_ + 1 < toks_.size()) ++pos_;
  }

  Status Fail(std::string msg) const { return ParseErrorAt(kLang, Cur(), std::move(msg)); }
  Status Expected(std::string_view what) const {
    return Fail("expected " + std::string(what) + ", found " + DescribeToken(Cur()));
  }

  Status Expect(TokenKind k) {
    if (!Cur().Is(k)) return Expected(TokenKindName(k));
    Next();
    return Status::Ok();
  }

  Result<AstName> ExpectTypeName(std::string_view what) {
    if (!Cur().Is(TokenKind::kTypeName)) {
      if (Cur().Is(TokenKind::kIdent)) {
        return Fail("expected " + std::string(what) + " (a TypeName starting with an upper-case " + "letter), found " +
                    DescribeToken(Cur()));
      }
      return Expected(what);
    }
    AstName n{Cur().text, Cur().span()};
    Next();
    return n;
  }

  Result<AstName> ExpectIdent(std::string_view what) {
    if (!Cur().Is(TokenKind::kIdent)) {
      if (Cur().Is(TokenKind::kTypeName)) {
        return Fail("expected " + std::string(what) + " (an identifier starting with a " +
                    "lower-case letter or `_`), found " + DescribeToken(Cur()));
      }
      return Expected(what);
    }
    AstName n{Cur().text, Cur().span()};
    Next();
    return n;
  }

  Result<AstInterface> ParseInterface() {
    AstInterface out;
    SourceSpan start = Cur().span();
    Next();
    OG_ASSIGN_OR_RETURN(out.name, ExpectTypeName("interface name"));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    while (!Cur().Is(TokenKind::kRBrace)) {
      if (out.properties.size() >= limits_.max_members) return TooManyMembers();
      if (!Cur().Is(TokenKind::kIdent)) return Expected("property name or `}`");
      OG_ASSIGN_OR_RETURN(auto p, ParseProperty());
      out.properties.push_back(std::move(p));
      SkipSeparator();
    }
    out.span = Join(start, Cur().span());
    Next();
    return out;
  }

  // Members may be separated by an optional `,` (the Rust README writes
  // `node Signal { slug: String @key, title: String }`).
  void SkipSeparator() {
    if (Cur().Is(TokenKind::kComma)) Next();
  }

  Status TooManyMembers() const {
    return Fail("more than " + std::to_string(limits_.max_members) + " members in one type");
  }

  // True at `@key(` `@unique(` `@index(` `@range(` `@check(`: a body constraint, which ends the
  // annotation list of the property before it (property-level forms take no parentheses).
  bool AtBodyConstraint() const {
    if (!Cur().Is(TokenKind::kAt) || !PeekTok(2).Is(TokenKind::kLParen)) return false;
    const Token& n = PeekTok(1);
    return n.IsWord("key") || n.IsWord("unique") || n.IsWord("index") || n.IsWord("range") || n.IsWord("check");
  }

  // Annotations following a node header, an edge header or a property type.
  Status ParseAnnotations(std::vector<AstAnnotation>* out) {
    while (Cur().Is(TokenKind::kAt) && !AtBodyConstraint()) {
      if (out->size() >= limits_.max_annotations) {
        return Fail("more than " + std::to_string(limits_.max_annotations) + " annotations");
      }
      OG_ASSIGN_OR_RETURN(auto a, ParseAnnotation());
      out->push_back(std::move(a));
    }
    return Status::Ok();
  }

  Result<AstLiteral> ParseLiteral() {
    AstLiteral lit;
    SourceSpan start = Cur().span();
    bool neg = false;
    if (Cur().Is(TokenKind::kMinus)) {
      neg = true;
      Next();
      if (!Cur().Is(TokenKind::kInt) && !Cur().Is(TokenKind::kFloat)) {
        return Expected("a number after `-`");
      }
    }
    const Token& t = Cur();
    switch (t.kind) {
      case TokenKind::kString: lit.kind = AstLiteral::Kind::kString; break;
      case TokenKind::kInt: lit.kind = AstLiteral::Kind::kInt; break;
      case TokenKind::kFloat: lit.kind = AstLiteral::Kind::kFloat; break;
      case TokenKind::kIdent:
        if (t.text == "true" || t.text == "false") {
          lit.kind = AstLiteral::Kind::kBool;
          break;
        }
        [[fallthrough]];
      default: return Expected("a literal (string, number, true or false)");
    }
    lit.text = (neg ? "-" : "") + t.text;
    lit.span = Join(start, t.span());
    Next();
    return lit;
  }

  Result<AstAnnotation> ParseAnnotation() {
    AstAnnotation a;
    SourceSpan at = Cur().span();
    Next();
    if (!Cur().Is(TokenKind::kIdent)) return Expected("annotation name after `@`");
    a.name = Cur().text;
    a.span = Join(at, Cur().span());
    Next();
    if (!Cur().Is(TokenKind::kLParen)) return a;
    a.has_parens = true;
    Next();
    while (!Cur().Is(TokenKind::kRParen)) {
      if (a.args.size() >= limits_.max_annotation_args) {
        return Fail("more than " + std::to_string(limits_.max_annotation_args) + " annotation arguments");
      }
      if (!a.args.empty()) OG_RETURN_IF_ERROR(ExpectCommaOr("`,` or `)`"));
      AstAnnotationArg arg;
      SourceSpan s = Cur().span();
      if (Cur().Is(TokenKind::kIdent) && PeekTok().Is(TokenKind::kEq)) {
        arg.name = Cur().text;
        Next();
        Next();
      } else if (!a.args.empty()) {
        return Expected("`name = literal` (only the first annotation argument is positional)");
      }
      OG_ASSIGN_OR_RETURN(arg.value, ParseLiteral());
      arg.span = Join(s, arg.value.span);
      a.args.push_back(std::move(arg));
    }
    a.span = Join(at, Cur().span());
    Next();
    return a;
  }

  Status ExpectCommaOr(std::string_view what) {
    if (!Cur().Is(TokenKind::kComma)) return Expected(what);
    Next();
    return Status::Ok();
  }

  Result<AstType> ParseType() {
    AstType ty;
    SourceSpan start = Cur().span();
    const Token& t = Cur();
    if (t.Is(TokenKind::kLBracket)) {
      Next();
      if (!Cur().Is(TokenKind::kTypeName) || !IsScalarName(Cur().text)) {
        return Fail("expected a scalar type inside `[...]` (" + std::string(kScalarList) + "), found " +
                    DescribeToken(Cur()));
      }
      ty.kind = AstType::Kind::kList;
      ty.scalar = Cur().text;
      Next();
      if (!Cur().Is(TokenKind::kRBracket)) return Expected("`]`");
    } else if (t.IsWord("Vector")) {
      Next();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      if (!Cur().Is(TokenKind::kInt)) return Expected("vector dimension (an integer)");
      ty.kind = AstType::Kind::kVector;
      ty.dimension = ParseU64Saturated(Cur().text);
      Next();
      if (!Cur().Is(TokenKind::kRParen)) return Expected("`)`");
    } else if (t.IsWord("enum")) {
      Next();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      ty.kind = AstType::Kind::kEnum;
      while (true) {
        if (ty.enum_values.size() >= limits_.max_enum_values) {
          return Fail("more than " + std::to_string(limits_.max_enum_values) + " enum values");
        }
        OG_ASSIGN_OR_RETURN(auto v, ParseEnumValue());
        ty.enum_values.push_back(std::move(v));
        if (Cur().Is(TokenKind::kComma)) {
          Next();
          continue;
        }
        if (!Cur().Is(TokenKind::kRParen)) return Expected("`,` or `)`");
        break;
      }
    } else if (t.Is(TokenKind::kTypeName) && IsScalarName(t.text)) {
      ty.kind = AstType::Kind::kScalar;
      ty.scalar = t.text;
    } else {
      return Fail("expected a type (" + std::string(kScalarList) + ", [scalar], Vector(n) or enum(...)), found " +
                  DescribeToken(t));
    }
    ty.span = Join(start, Cur().span());
    Next();
    if (Cur().Is(TokenKind::kQuestion)) {
      ty.nullable = true;
      ty.span = Join(start, Cur().span());
      Next();
    }
    return ty;
  }

  // enumval := [A-Za-z0-9_-]+ : glued from adjacent word / number / `-` tokens with no gap.
  Result<AstName> ParseEnumValue() {
    auto is_part = [](const Token& t) {
      return t.Is(TokenKind::kIdent) || t.Is(TokenKind::kTypeName) || t.Is(TokenKind::kInt) || t.Is(TokenKind::kMinus);
    };
    if (!is_part(Cur())) return Expected("enum value ([A-Za-z0-9_-]+)");
    AstName v;
    v.span = Cur().span();
    uint32_t end = Cur().offset;
    while (is_part(Cur()) && (v.name.empty() || Cur().offset == end)) {
      v.name += Cur().Is(TokenKind::kMinus) ? std::string("-") : Cur().text;
      end = Cur().end_offset;
      v.span = Join(v.span, Cur().span());
      Next();
      if (v.name.size() > limits_.lex.max_identifier_bytes) {
        return Fail("enum value is longer than " + std::to_string(limits_.lex.max_identifier_bytes) + " bytes");
      }
    }
    return v;
  }

  Result<AstProperty> ParseProperty() {
    AstProperty p;
    OG_ASSIGN_OR_RETURN(p.name, ExpectIdent("property name"));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
    OG_ASSIGN_OR_RETURN(p.type, ParseType());
    OG_RETURN_IF_ERROR(ParseAnnotations(&p.annotations));
    return p;
  }

  Result<AstLiteral> ParseNumber() {
    if (!Cur().Is(TokenKind::kMinus) && !Cur().Is(TokenKind::kInt) && !Cur().Is(TokenKind::kFloat)) {
      return Expected("a number");
    }
    return ParseLiteral();
  }

  Status ParseNameList(AstConstraint* c) {
    while (true) {
      if (c->properties.size() >= limits_.max_constraint_args) {
        return Fail("more than " + std::to_string(limits_.max_constraint_args) + " constraint arguments");
      }
      OG_ASSIGN_OR_RETURN(auto n, ExpectIdent("property name"));
      c->properties.push_back(std::move(n));
      if (Cur().Is(TokenKind::kComma)) {
        Next();
        continue;
      }
      if (!Cur().Is(TokenKind::kRParen)) return Expected("`,` or `)`");
      return Status::Ok();
    }
  }

  // Body member starting with `@`: a constraint, or an unknown annotation kept as metadata.
  Status ParseBodyAnnotation(std::vector<AstConstraint>* cons, std::vector<AstAnnotation>* meta) {
    const Token& name = PeekTok();
    if (!name.Is(TokenKind::kIdent)) {
      Next();
      return Expected("constraint name after `@`");
    }
    AstConstraint c;
    const std::string& w = name.text;
    if (w == "key") {
      c.kind = AstConstraint::Kind::kKey;
    } else if (w == "unique") {
      c.kind = AstConstraint::Kind::kUnique;
    } else if (w == "index") {
      c.kind = AstConstraint::Kind::kIndex;
    } else if (w == "range") {
      c.kind = AstConstraint::Kind::kRange;
    } else if (w == "check") {
      c.kind = AstConstraint::Kind::kCheck;
    } else {
      OG_ASSIGN_OR_RETURN(auto a, ParseAnnotation());
      meta->push_back(std::move(a));
      return Status::Ok();
    }
    SourceSpan start = Cur().span();
    Next();
    Next();
    if (!Cur().Is(TokenKind::kLParen)) {
      return Expected("`(` (a body constraint lists its properties: @" + w + "(...))");
    }
    Next();
    if (c.kind == AstConstraint::Kind::kRange) {
      OG_ASSIGN_OR_RETURN(auto n, ExpectIdent("property name"));
      c.properties.push_back(std::move(n));
      OG_RETURN_IF_ERROR(Expect(TokenKind::kComma));
      if (!Cur().Is(TokenKind::kDotDot)) {
        OG_ASSIGN_OR_RETURN(c.min, ParseNumber());
      }
      if (!Cur().Is(TokenKind::kDotDot)) return Expected("`..`");
      Next();
      if (!Cur().Is(TokenKind::kRParen)) {
        OG_ASSIGN_OR_RETURN(c.max, ParseNumber());
      } else if (!c.min.has_value()) {
        return Expected("a number (a range needs at least one bound)");
      }
      if (!Cur().Is(TokenKind::kRParen)) return Expected("`)`");
    } else if (c.kind == AstConstraint::Kind::kCheck) {
      OG_ASSIGN_OR_RETURN(auto n, ExpectIdent("property name"));
      c.properties.push_back(std::move(n));
      OG_RETURN_IF_ERROR(Expect(TokenKind::kComma));
      if (!Cur().Is(TokenKind::kString)) return Expected("regular expression (a string)");
      c.pattern = Cur().text;
      c.pattern_span = Cur().span();
      Next();
      if (!Cur().Is(TokenKind::kRParen)) return Expected("`)`");
    } else {
      OG_RETURN_IF_ERROR(ParseNameList(&c));
    }
    c.span = Join(start, Cur().span());
    Next();
    cons->push_back(std::move(c));
    return Status::Ok();
  }

  Status ParseBody(std::vector<AstProperty>* props, std::vector<AstConstraint>* cons, std::vector<AstAnnotation>* meta,
                   SourceSpan* end) {
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    while (!Cur().Is(TokenKind::kRBrace)) {
      if (props->size() + cons->size() + meta->size() >= limits_.max_members) {
        return TooManyMembers();
      }
      if (Cur().Is(TokenKind::kAt)) {
        OG_RETURN_IF_ERROR(ParseBodyAnnotation(cons, meta));
      } else if (Cur().Is(TokenKind::kIdent)) {
        OG_ASSIGN_OR_RETURN(auto p, ParseProperty());
        props->push_back(std::move(p));
      } else if (Cur().Is(TokenKind::kTypeName)) {
        return Fail(
            "expected property name (an identifier starting with a lower-case letter or "
            "`_`), found " +
            DescribeToken(Cur()));
      } else {
        return Expected("property, constraint or `}`");
      }
      SkipSeparator();
    }
    *end = Cur().span();
    Next();
    return Status::Ok();
  }

  Result<AstNode> ParseNode() {
    AstNode n;
    SourceSpan start = Cur().span();
    Next();
    OG_ASSIGN_OR_RETURN(n.name, ExpectTypeName("node type name"));
    OG_RETURN_IF_ERROR(ParseAnnotations(&n.annotations));
    if (Cur().IsWord("implements")) {
      Next();
      while (true) {
        if (n.implements.size() >= limits_.max_constraint_args) {
          return Fail("too many interfaces in `implements`");
        }
        OG_ASSIGN_OR_RETURN(auto i, ExpectTypeName("interface name"));
        n.implements.push_back(std::move(i));
        if (!Cur().Is(TokenKind::kComma)) break;
        Next();
      }
    }
    if (!Cur().Is(TokenKind::kLBrace)) {
      return Expected(n.implements.empty() ? "`{`, `implements` or an annotation" : "`,` or `{`");
    }
    SourceSpan end;
    OG_RETURN_IF_ERROR(ParseBody(&n.properties, &n.constraints, &n.body_annotations, &end));
    n.span = Join(start, end);
    return n;
  }

  Result<AstEdge> ParseEdge() {
    AstEdge e;
    SourceSpan start = Cur().span();
    Next();
    OG_ASSIGN_OR_RETURN(e.name, ExpectTypeName("edge type name"));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
    OG_ASSIGN_OR_RETURN(e.from, ExpectTypeName("source node type"));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kArrow));
    OG_ASSIGN_OR_RETURN(e.to, ExpectTypeName("target node type"));
    SourceSpan end = Prev().span();
    while (Cur().Is(TokenKind::kAt)) {
      if (PeekTok().IsWord("card")) {
        if (e.card.has_value()) {
          return Fail("`@card` given twice");
        }
        OG_ASSIGN_OR_RETURN(auto c, ParseCard());
        e.card = c;
        end = c.span;
        continue;
      }
      if (e.annotations.size() >= limits_.max_annotations) {
        return Fail("more than " + std::to_string(limits_.max_annotations) + " annotations");
      }
      OG_ASSIGN_OR_RETURN(auto a, ParseAnnotation());
      end = a.span;
      e.annotations.push_back(std::move(a));
    }
    if (Cur().Is(TokenKind::kLBrace)) {
      OG_RETURN_IF_ERROR(ParseBody(&e.properties, &e.constraints, &e.body_annotations, &end));
    }
    e.span = Join(start, end);
    return e;
  }

  Result<AstCard> ParseCard() {
    AstCard c;
    SourceSpan start = Cur().span();
    Next();
    Next();
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    if (!Cur().Is(TokenKind::kInt)) return Expected("minimum edge count (an integer)");
    c.min = ParseU64Saturated(Cur().text);
    Next();
    OG_RETURN_IF_ERROR(Expect(TokenKind::kDotDot));
    if (Cur().Is(TokenKind::kInt)) {
      c.max = ParseU64Saturated(Cur().text);
      Next();
    } else if (Cur().Is(TokenKind::kStar)) {
      Next();
    }
    if (!Cur().Is(TokenKind::kRParen)) return Expected("maximum edge count, `*` or `)`");
    c.span = Join(start, Cur().span());
    Next();
    return c;
  }

  std::vector<Token> toks_;
  const SchemaParseLimits& limits_;
  size_t pos_ = 0;
};

}  // namespace

Result<AstSchema> ParseSchema(std::string_view source, const SchemaParseLimits& limits) {
  OG_ASSIGN_OR_RETURN(auto toks, Tokenize(source, kLang, limits.lex));
  return SchemaParser(std::move(toks), limits).Run();
}

}  // namespace omnigraph::compiler
