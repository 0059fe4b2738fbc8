// Recursive-descent parser for .gq files; see query_parser.h and docs/language.md, "Read queries"
// and "Mutations".
#include "compiler/query_parser.h"

#include <charconv>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "common/error_codes.h"

namespace omnigraph::compiler {

std::string_view AggFnName(AggFn fn) {
  switch (fn) {
    case AggFn::kCount: return "count";
    case AggFn::kSum: return "sum";
    case AggFn::kAvg: return "avg";
    case AggFn::kMin: return "min";
    case AggFn::kMax: return "max";
  }
  return "count";
}

std::string_view SearchFunctionName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kNearest: return "nearest";
    case ExprKind::kBm25: return "bm25";
    case ExprKind::kRrf: return "rrf";
    case ExprKind::kSearch: return "search";
    case ExprKind::kFuzzy: return "fuzzy";
    case ExprKind::kMatchText: return "match_text";
    default: return "";
  }
}

std::string_view CompareOpName(CompareOp op) {
  switch (op) {
    case CompareOp::kEq: return "=";
    case CompareOp::kNe: return "!=";
    case CompareOp::kLt: return "<";
    case CompareOp::kLe: return "<=";
    case CompareOp::kGt: return ">";
    case CompareOp::kGe: return ">=";
    case CompareOp::kContains: return "contains";
    case CompareOp::kStartsWith: return "starts_with";
  }
  return "=";
}

namespace {

bool ScalarFromName(std::string_view name, TypeKind* out) {
  static constexpr std::pair<std::string_view, TypeKind> kNames[] = {
      {"String", TypeKind::kString}, {"Blob", TypeKind::kBlob},        {"Bool", TypeKind::kBool},
      {"I32", TypeKind::kI32},       {"I64", TypeKind::kI64},          {"U32", TypeKind::kU32},
      {"U64", TypeKind::kU64},       {"F32", TypeKind::kF32},          {"F64", TypeKind::kF64},
      {"Date", TypeKind::kDate},     {"DateTime", TypeKind::kDateTime}};
  for (const auto& [n, k] : kNames) {
    if (n == name) {
      *out = k;
      return true;
    }
  }
  return false;
}

bool AggFromName(std::string_view name, AggFn* out) {
  static constexpr std::pair<std::string_view, AggFn> kNames[] = {
      {"count", AggFn::kCount}, {"sum", AggFn::kSum}, {"avg", AggFn::kAvg}, {"min", AggFn::kMin}, {"max", AggFn::kMax}};
  for (const auto& [n, f] : kNames) {
    if (n == name) {
      *out = f;
      return true;
    }
  }
  return false;
}

std::string JoinExpected(std::initializer_list<std::string_view> expected) {
  std::string out;
  size_t i = 0;
  for (std::string_view e : expected) {
    if (i > 0) out += (i + 1 == expected.size()) ? " or " : ", ";
    out += e;
    ++i;
  }
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, const QueryParseLimits& limits) : tokens_(std::move(tokens)), limits_(limits) {}

  Result<QueryFile> ParseFile() {
    QueryFile file;
    while (!At(TokenKind::kEnd)) {
      if (!AtWord("query")) return Fail({"`query`", "end of input"});
      if (file.queries.size() >= limits_.max_queries) {
        return Error("too many queries in one file (limit " + std::to_string(limits_.max_queries) + ")");
      }
      clauses_ = 0;
      OG_ASSIGN_OR_RETURN(Query q, ParseQuery());
      file.queries.push_back(std::move(q));
    }
    return file;
  }

 private:
  // RAII nesting counter for the depth limit.
  class DepthGuard {
   public:
    explicit DepthGuard(Parser* p) : p_(p) { ++p_->depth_; }
    ~DepthGuard() { --p_->depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    Parser* p_;
  };

  const Token& Peek(size_t k = 0) const {
    size_t i = pos_ + k;
    return i < tokens_.size() ? tokens_[i] : tokens_.back();
  }
  bool At(TokenKind k) const { return Peek().Is(k); }
  bool AtWord(std::string_view w) const { return Peek().IsWord(w); }
  const Token& Advance() {
    const Token& t = Peek();
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }

  Status Error(std::string message) const { return ParseErrorAt(SourceLanguage::kQuery, Peek(), std::move(message)); }
  Status ErrorAt(const Token& t, std::string message) const {
    return ParseErrorAt(SourceLanguage::kQuery, t, std::move(message));
  }
  Status Fail(std::initializer_list<std::string_view> expected) const {
    return Error("expected " + JoinExpected(expected) + ", found " + DescribeToken(Peek()));
  }
  Status CheckDepth() const {
    if (depth_ > limits_.max_depth) {
      return Error("query nesting is deeper than the limit of " + std::to_string(limits_.max_depth));
    }
    return Status::Ok();
  }

  Result<Token> Expect(TokenKind k) {
    if (!At(k)) {
      std::string name(TokenKindName(k));
      return Fail({name});
    }
    return Advance();
  }
  Result<Token> ExpectWord(std::string_view w) {
    if (!AtWord(w)) {
      std::string name = "`" + std::string(w) + "`";
      return Fail({name});
    }
    return Advance();
  }

  Result<uint64_t> ParseUnsigned(const Token& t, uint64_t max, std::string_view what) {
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || ptr != t.text.data() + t.text.size() || v > max) {
      return ErrorAt(t, std::string(what) + " `" + t.text + "` is out of range (maximum " + std::to_string(max) + ")");
    }
    return v;
  }

  Result<Query> ParseQuery() {
    Query q;
    OG_ASSIGN_OR_RETURN(Token kw, ExpectWord("query"));
    q.span = kw.span();
    if (!At(TokenKind::kIdent)) return Fail({"query name (identifier)"});
    q.name = Peek().text;
    q.name_span = Advance().span();
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    if (!At(TokenKind::kRParen)) {
      while (true) {
        OG_ASSIGN_OR_RETURN(ParamDecl p, ParseParam());
        q.params.push_back(std::move(p));
        if (At(TokenKind::kComma)) {
          Advance();
          continue;
        }
        if (At(TokenKind::kRParen)) break;
        return Fail({"`,`", "`)`"});
      }
    }
    OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    while (At(TokenKind::kAt)) {
      Advance();
      if (!AtWord("description") && !AtWord("instruction")) {
        return Fail({"`description`", "`instruction`"});
      }
      QueryAnnotation a;
      a.name = Advance().text;
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      OG_ASSIGN_OR_RETURN(Token s, Expect(TokenKind::kString));
      a.text = s.text;
      OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
      q.annotations.push_back(std::move(a));
    }
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    if (AtWord("match")) {
      OG_RETURN_IF_ERROR(ParseRead(&q));
    } else if (AtWord("insert") || AtWord("update") || AtWord("delete")) {
      OG_RETURN_IF_ERROR(ParseMutations(&q));
    } else {
      return Fail({"`match`", "`insert`", "`update`", "`delete`"});
    }
    OG_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
    return q;
  }

  Result<ParamDecl> ParseParam() {
    ParamDecl p;
    if (!At(TokenKind::kVariable)) return Fail({"parameter (`$name`)", "`)`"});
    const Token& v = Advance();
    p.name = v.text;
    p.span = v.span();
    OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
    TypeKind kind;
    if (At(TokenKind::kLBracket)) {
      Advance();
      if (!At(TokenKind::kTypeName) || !ScalarFromName(Peek().text, &kind)) {
        return Fail({"scalar type name"});
      }
      if (kind == TypeKind::kBlob) return Error("a list parameter cannot hold Blob");
      Advance();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kRBracket));
      p.type = DataType::List(kind);
    } else if (AtWord("Vector")) {
      Advance();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      OG_ASSIGN_OR_RETURN(Token n, Expect(TokenKind::kInt));
      OG_ASSIGN_OR_RETURN(uint64_t dim, ParseUnsigned(n, 65536, "vector dimension"));
      if (dim == 0) return ErrorAt(n, "vector dimension must be between 1 and 65536");
      OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
      p.type = DataType::Vector(static_cast<uint32_t>(dim));
    } else if (At(TokenKind::kTypeName) && ScalarFromName(Peek().text, &kind)) {
      Advance();
      p.type = DataType::Scalar(kind);
    } else {
      return Fail({"scalar type name", "`[`", "`Vector`"});
    }
    if (At(TokenKind::kQuestion)) {
      Advance();
      p.nullable = true;
    }
    return p;
  }

  Status ParseRead(Query* q) {
    OG_RETURN_IF_ERROR(ExpectWord("match"));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    OG_RETURN_IF_ERROR(ParseClauses(&q->match));
    OG_RETURN_IF_ERROR(Expect(TokenKind::kRBrace));
    if (!AtWord("return")) return Fail({"`return`"});
    q->return_span = Advance().span();
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
    if (At(TokenKind::kRBrace)) return Fail({"expression"});
    while (!At(TokenKind::kRBrace)) {
      Projection p;
      OG_ASSIGN_OR_RETURN(p.expr, ParseExpr());
      if (AtWord("as")) {
        Advance();
        if (!At(TokenKind::kIdent)) return Fail({"alias (identifier)"});
        p.alias = Peek().text;
        p.alias_span = Advance().span();
      }
      q->projections.push_back(std::move(p));
      if (At(TokenKind::kComma)) Advance();
      if (At(TokenKind::kEnd)) return Fail({"`}`"});
    }
    Advance();  // }
    if (AtWord("order")) {
      Advance();
      q->has_order = true;
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
      while (true) {
        Ordering o;
        OG_ASSIGN_OR_RETURN(o.expr, ParseExpr());
        if (AtWord("asc")) {
          Advance();
          o.dir = OrderDir::kAsc;
        } else if (AtWord("desc")) {
          Advance();
          o.dir = OrderDir::kDesc;
        }
        q->order.push_back(std::move(o));
        if (At(TokenKind::kComma)) {
          Advance();
          continue;
        }
        if (At(TokenKind::kRBrace)) break;
        return Fail({"`asc`", "`desc`", "`,`", "`}`"});
      }
      Advance();  // }
    }
    if (AtWord("limit")) {
      Advance();
      if (!At(TokenKind::kInt)) return Fail({"integer"});
      q->limit_span = Peek().span();
      OG_ASSIGN_OR_RETURN(uint64_t n, ParseUnsigned(Peek(), UINT64_MAX >> 1, "limit"));
      Advance();
      q->limit = n;
    }
    if (!At(TokenKind::kRBrace)) {
      if (q->has_order && !q->limit) return Fail({"`limit`", "`}`"});
      if (q->limit) return Fail({"`}`"});
      return Fail({"`order`", "`limit`", "`}`"});
    }
    return Status::Ok();
  }

  // clause+ up to (not consuming) the closing brace.
  Status ParseClauses(std::vector<Clause>* out) {
    if (At(TokenKind::kRBrace)) {
      return Fail({"variable", "`not`", "`search`", "`match_text`", "`fuzzy`", "expression"});
    }
    while (!At(TokenKind::kRBrace)) {
      if (At(TokenKind::kEnd) || AtWord("return")) return Fail({"`}`"});
      OG_ASSIGN_OR_RETURN(Clause c, ParseClause());
      out->push_back(std::move(c));
    }
    return Status::Ok();
  }

  static bool IsOpWord(const Token& t) { return t.IsWord("contains") || t.IsWord("starts_with"); }

  Result<Clause> ParseClause() {
    DepthGuard guard(this);
    OG_RETURN_IF_ERROR(CheckDepth());
    if (++clauses_ > limits_.max_clauses) {
      return Error("the query has more than " + std::to_string(limits_.max_clauses) +
                   " clauses (the limit per query, `not` bodies included)");
    }
    Clause c;
    c.span = Peek().span();
    if (AtWord("not") && Peek(1).Is(TokenKind::kLBrace)) {
      Advance();
      Advance();
      c.kind = ClauseKind::kNot;
      OG_RETURN_IF_ERROR(ParseClauses(&c.body));
      Advance();  // }
      return c;
    }
    if (At(TokenKind::kVariable)) {
      const Token& n1 = Peek(1);
      if (n1.Is(TokenKind::kColon) && (Peek(2).IsWord("shortest") || Peek(2).IsWord("all_shortest")) &&
          Peek(3).Is(TokenKind::kLParen)) {
        return ParseShortest(std::move(c));
      }
      if (n1.Is(TokenKind::kColon)) return ParseBinding(std::move(c));
      bool edge_binding = n1.Is(TokenKind::kVariable) && Peek(2).Is(TokenKind::kColon);
      bool undirected = n1.Is(TokenKind::kLt) && Peek(2).Is(TokenKind::kIdent) && Peek(3).Is(TokenKind::kGt);
      bool directed = n1.Is(TokenKind::kIdent) && !n1.IsWord("not") &&
                      (!IsOpWord(n1) || Peek(2).Is(TokenKind::kVariable) || Peek(2).Is(TokenKind::kLBrace));
      if (edge_binding || undirected || directed) return ParseTraversal(std::move(c));
    }
    if ((AtWord("search") || AtWord("match_text") || AtWord("fuzzy")) && Peek(1).Is(TokenKind::kLParen)) {
      OG_ASSIGN_OR_RETURN(Expr call, ParseExpr());
      if (!AtCompareOp()) {
        c.kind = ClauseKind::kTextSearch;
        c.call = std::move(call);
        return c;
      }
      c.kind = ClauseKind::kFilter;
      c.lhs = std::move(call);
      return ParseFilterRest(std::move(c));
    }
    c.kind = ClauseKind::kFilter;
    OG_ASSIGN_OR_RETURN(c.lhs, ParseExpr());
    return ParseFilterRest(std::move(c));
  }

  bool AtCompareOp() const {
    switch (Peek().kind) {
      case TokenKind::kEq:
      case TokenKind::kNe:
      case TokenKind::kLt:
      case TokenKind::kLe:
      case TokenKind::kGt:
      case TokenKind::kGe: return true;
      default: return IsOpWord(Peek());
    }
  }

  Result<CompareOp> ParseOp() {
    CompareOp op;
    switch (Peek().kind) {
      case TokenKind::kEq: op = CompareOp::kEq; break;
      case TokenKind::kNe: op = CompareOp::kNe; break;
      case TokenKind::kLt: op = CompareOp::kLt; break;
      case TokenKind::kLe: op = CompareOp::kLe; break;
      case TokenKind::kGt: op = CompareOp::kGt; break;
      case TokenKind::kGe: op = CompareOp::kGe; break;
      default:
        if (AtWord("contains")) {
          op = CompareOp::kContains;
        } else if (AtWord("starts_with")) {
          op = CompareOp::kStartsWith;
        } else {
          return Fail({"`=`", "`!=`", "`<`", "`<=`", "`>`", "`>=`", "`contains`", "`starts_with`"});
        }
    }
    Advance();
    return op;
  }

  Result<Clause> ParseFilterRest(Clause c) {
    OG_ASSIGN_OR_RETURN(c.op, ParseOp());
    OG_ASSIGN_OR_RETURN(c.rhs, ParseExpr());
    return c;
  }

  Result<Clause> ParseBinding(Clause c) {
    c.kind = ClauseKind::kBinding;
    c.var = Peek().text;
    c.var_span = Advance().span();
    Advance();  // :
    if (!At(TokenKind::kTypeName)) return Fail({"type name"});
    c.type_name = Peek().text;
    c.type_span = Advance().span();
    if (At(TokenKind::kLBrace)) {
      Advance();
      if (At(TokenKind::kRBrace)) return Fail({"property name"});
      OG_RETURN_IF_ERROR(ParseAssignments(&c.properties));
    }
    return c;
  }

  // (ident ":" value ","?)* up to and including the closing brace.
  Status ParseAssignments(std::vector<PropertyValue>* out) {
    while (!At(TokenKind::kRBrace)) {
      if (!At(TokenKind::kIdent)) return Fail({"property name", "`}`"});
      PropertyValue pv;
      pv.property = Peek().text;
      pv.span = Advance().span();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
      OG_ASSIGN_OR_RETURN(pv.value, ParseValue());
      out->push_back(std::move(pv));
      if (At(TokenKind::kComma)) Advance();
    }
    Advance();  // }
    return Status::Ok();
  }

  // $path: shortest($src edge{min,max} $dst[, weight: property]) | $path: all_shortest(...)
  Result<Clause> ParseShortest(Clause c) {
    c.var = Peek().text;
    c.var_span = Advance().span();
    Advance();  // :
    c.all_paths = Advance().IsWord("all_shortest");
    Advance();  // (
    if (!At(TokenKind::kVariable)) return Fail({"variable"});
    OG_ASSIGN_OR_RETURN(c, ParseTraversal(std::move(c)));
    c.kind = ClauseKind::kShortest;
    if (At(TokenKind::kComma)) {
      Advance();
      OG_RETURN_IF_ERROR(ExpectWord("weight"));
      OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
      if (!At(TokenKind::kIdent)) return Fail({"property name"});
      c.weight = Peek().text;
      c.weight_span = Advance().span();
    }
    OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    return c;
  }

  Result<Clause> ParseTraversal(Clause c) {
    c.kind = ClauseKind::kTraversal;
    c.src = Peek().text;
    c.src_span = Advance().span();
    if (At(TokenKind::kVariable)) {
      c.edge_var = Peek().text;
      c.edge_var_span = Advance().span();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kColon));
    }
    if (At(TokenKind::kLt)) {
      Advance();
      c.undirected = true;
      if (!At(TokenKind::kIdent) || AtWord("not")) return Fail({"edge name (identifier)"});
      c.edge = Peek().text;
      c.edge_span = Advance().span();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kGt));
    } else {
      if (!At(TokenKind::kIdent) || AtWord("not")) {
        return Fail({"edge name (identifier)", "`<`"});
      }
      c.edge = Peek().text;
      c.edge_span = Advance().span();
    }
    if (At(TokenKind::kLBrace)) {
      c.hops_span = Advance().span();
      Hops h;
      if (!At(TokenKind::kInt)) return Fail({"integer"});
      OG_ASSIGN_OR_RETURN(uint64_t mn, ParseUnsigned(Peek(), UINT32_MAX, "hop bound"));
      Advance();
      h.min = static_cast<uint32_t>(mn);
      OG_RETURN_IF_ERROR(Expect(TokenKind::kComma));
      if (At(TokenKind::kInt)) {
        OG_ASSIGN_OR_RETURN(uint64_t mx, ParseUnsigned(Peek(), UINT32_MAX, "hop bound"));
        Advance();
        h.max = static_cast<uint32_t>(mx);
      } else if (!At(TokenKind::kRBrace)) {
        return Fail({"integer", "`}`"});
      }
      OG_ASSIGN_OR_RETURN(Token close, Expect(TokenKind::kRBrace));
      c.hops_span.end_line = close.end_line;
      c.hops_span.end_column = close.end_column;
      c.hops = h;
    }
    if (!At(TokenKind::kVariable)) {
      if (c.hops || c.undirected) return Fail({"variable"});
      return Fail({"`{`", "variable"});
    }
    c.dst = Peek().text;
    c.dst_span = Advance().span();
    return c;
  }

  // value := literal | var | now()
  Result<Expr> ParseValue() {
    if (At(TokenKind::kVariable)) {
      Expr e;
      e.kind = ExprKind::kVariable;
      e.name = Peek().text;
      e.span = Advance().span();
      return e;
    }
    if (AtWord("now") && Peek(1).Is(TokenKind::kLParen)) return ParseExpr();
    if (!StartsLiteral()) return Fail({"literal", "parameter (`$name`)", "`now()`"});
    Expr e;
    e.kind = ExprKind::kLiteral;
    e.span = Peek().span();
    OG_ASSIGN_OR_RETURN(e.literal, ParseLiteral());
    return e;
  }

  bool StartsLiteral() const {
    switch (Peek().kind) {
      case TokenKind::kString:
      case TokenKind::kInt:
      case TokenKind::kFloat:
      case TokenKind::kMinus:
      case TokenKind::kLBracket: return true;
      default:
        return AtWord("true") || AtWord("false") ||
               ((AtWord("date") || AtWord("datetime")) && Peek(1).Is(TokenKind::kLParen));
    }
  }

  Result<Literal> ParseLiteral() {
    DepthGuard guard(this);
    OG_RETURN_IF_ERROR(CheckDepth());
    Literal lit;
    const Token& t = Peek();
    switch (t.kind) {
      case TokenKind::kString:
        lit.kind = LiteralKind::kString;
        lit.text = Advance().text;
        return lit;
      case TokenKind::kInt:
        lit.kind = LiteralKind::kInt;
        lit.text = Advance().text;
        return lit;
      case TokenKind::kFloat:
        lit.kind = LiteralKind::kFloat;
        lit.text = Advance().text;
        return lit;
      case TokenKind::kMinus: {
        Advance();
        if (!At(TokenKind::kInt) && !At(TokenKind::kFloat)) return Fail({"number"});
        lit.kind = At(TokenKind::kInt) ? LiteralKind::kInt : LiteralKind::kFloat;
        lit.text = "-" + Advance().text;
        return lit;
      }
      case TokenKind::kLBracket: {
        Advance();
        lit.kind = LiteralKind::kList;
        if (At(TokenKind::kRBracket)) {
          Advance();
          return lit;
        }
        while (true) {
          if (!StartsLiteral()) return Fail({"literal"});
          OG_ASSIGN_OR_RETURN(Literal item, ParseLiteral());
          lit.items.push_back(std::move(item));
          if (At(TokenKind::kComma)) {
            Advance();
            continue;
          }
          if (At(TokenKind::kRBracket)) break;
          return Fail({"`,`", "`]`"});
        }
        Advance();
        return lit;
      }
      default: break;
    }
    if (AtWord("true") || AtWord("false")) {
      lit.kind = LiteralKind::kBool;
      lit.text = Advance().text;
      return lit;
    }
    if (AtWord("date") || AtWord("datetime")) {
      lit.kind = AtWord("date") ? LiteralKind::kDate : LiteralKind::kDateTime;
      Advance();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
      OG_ASSIGN_OR_RETURN(Token s, Expect(TokenKind::kString));
      lit.text = s.text;
      OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
      return lit;
    }
    return Fail({"literal"});
  }

  // Parses `(` arg ("," arg)* `)` with between min_args and max_args arguments.
  Status ParseArgs(Expr* call, size_t min_args, size_t max_args, std::string_view fn) {
    OG_RETURN_IF_ERROR(Expect(TokenKind::kLParen));
    while (true) {
      if (call->args.size() == 2 && fn == "rrf" && AtWord("k") && Peek(1).Is(TokenKind::kEq)) {
        Advance();
        Advance();
      }
      OG_ASSIGN_OR_RETURN(Expr arg, ParseExpr());
      call->args.push_back(std::move(arg));
      if (At(TokenKind::kComma) && call->args.size() < max_args) {
        Advance();
        continue;
      }
      if (At(TokenKind::kRParen) && call->args.size() >= min_args) break;
      if (call->args.size() < min_args) return Fail({"`,`"});
      if (call->args.size() < max_args) return Fail({"`,`", "`)`"});
      return Fail({"`)`"});
    }
    Advance();
    return Status::Ok();
  }

  Result<Expr> ParseExpr() {
    DepthGuard guard(this);
    OG_RETURN_IF_ERROR(CheckDepth());
    Expr e;
    e.span = Peek().span();
    if (At(TokenKind::kVariable)) {
      e.name = Advance().text;
      if (At(TokenKind::kDot)) {
        Advance();
        if (!At(TokenKind::kIdent)) return Fail({"property name"});
        e.kind = ExprKind::kProperty;
        e.property = Peek().text;
        const Token& p = Advance();
        e.span.end_line = p.end_line;
        e.span.end_column = p.end_column;
      } else {
        e.kind = ExprKind::kVariable;
      }
      return e;
    }
    if (StartsLiteral()) {
      e.kind = ExprKind::kLiteral;
      OG_ASSIGN_OR_RETURN(e.literal, ParseLiteral());
      return e;
    }
    if (!At(TokenKind::kIdent)) return Fail({"expression"});
    std::string word = Peek().text;
    if (!Peek(1).Is(TokenKind::kLParen)) {
      e.kind = ExprKind::kAlias;
      e.name = Advance().text;
      return e;
    }
    const Token& fn_tok = Advance();
    AggFn agg;
    if (word == "now") {
      e.kind = ExprKind::kNow;
      Advance();
      OG_RETURN_IF_ERROR(Expect(TokenKind::kRParen));
    } else if (AggFromName(word, &agg)) {
      e.kind = ExprKind::kAggregate;
      e.agg = agg;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 1, 1, word));
    } else if (word == "nearest") {
      e.kind = ExprKind::kNearest;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 2, word));
    } else if (word == "bm25") {
      e.kind = ExprKind::kBm25;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 2, word));
    } else if (word == "rrf") {
      e.kind = ExprKind::kRrf;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 3, word));
    } else if (word == "search") {
      e.kind = ExprKind::kSearch;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 2, word));
    } else if (word == "match_text") {
      e.kind = ExprKind::kMatchText;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 2, word));
    } else if (word == "fuzzy") {
      e.kind = ExprKind::kFuzzy;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 2, 3, word));
    } else if (word == "length" || word == "nodes" || word == "edges" || word == "cost") {
      e.kind = ExprKind::kPathFn;
      e.function = word;
      OG_RETURN_IF_ERROR(ParseArgs(&e, 1, 1, word));
    } else {
      return ErrorAt(fn_tok, "unknown function `" + word +
                                 "`; expected one of count, sum, avg, min, max, now, nearest, "
                                 "bm25, rrf, search, match_text, fuzzy, length, nodes, edges, cost");
    }
    return e;
  }

  Status ParseMutations(Query* q) {
    size_t first_delete = SIZE_MAX, first_write = SIZE_MAX;
    while (!At(TokenKind::kRBrace)) {
      Mutation m;
      m.span = Peek().span();
      if (AtWord("insert")) {
        m.kind = MutationKind::kInsert;
      } else if (AtWord("update")) {
        m.kind = MutationKind::kUpdate;
      } else if (AtWord("delete")) {
        m.kind = MutationKind::kDelete;
      } else {
        return Fail({"`insert`", "`update`", "`delete`", "`}`"});
      }
      const Token& kw = Advance();
      if (m.kind == MutationKind::kDelete) {
        if (first_write != SIZE_MAX) return MixError(kw, q->name);
        if (first_delete == SIZE_MAX) first_delete = q->mutations.size();
      } else {
        if (first_delete != SIZE_MAX) return MixError(kw, q->name);
        if (first_write == SIZE_MAX) first_write = q->mutations.size();
      }
      if (!At(TokenKind::kTypeName)) return Fail({"type name"});
      m.type_name = Peek().text;
      m.type_span = Advance().span();
      if (m.kind == MutationKind::kUpdate) OG_RETURN_IF_ERROR(ExpectWord("set"));
      if (m.kind != MutationKind::kDelete) {
        OG_RETURN_IF_ERROR(Expect(TokenKind::kLBrace));
        OG_RETURN_IF_ERROR(ParseAssignments(&m.assignments));
      }
      if (m.kind != MutationKind::kInsert) {
        OG_RETURN_IF_ERROR(ExpectWord("where"));
        if (!At(TokenKind::kIdent)) return Fail({"property name"});
        m.where_property = Peek().text;
        m.where_span = Advance().span();
        OG_ASSIGN_OR_RETURN(m.where_op, ParseOp());
        OG_ASSIGN_OR_RETURN(m.where_value, ParseValue());
      }
      q->mutations.push_back(std::move(m));
    }
    return Status::Ok();
  }

  Status MixError(const Token& kw, const std::string& query) const {
    return ErrorAt(kw, "query `" + query +
                           "` mixes inserts/updates and deletes; split it into two mutation "
                           "queries (one with the inserts/updates, one with the deletes)");
  }

  std::vector<Token> tokens_;
  const QueryParseLimits& limits_;
  size_t pos_ = 0;
  size_t depth_ = 0;
  size_t clauses_ = 0;  // clauses of the query being parsed
};

}  // namespace

Result<QueryFile> ParseQueryFile(std::string_view source, const QueryParseLimits& limits) {
  OG_ASSIGN_OR_RETURN(std::vector<Token> tokens, Tokenize(source, SourceLanguage::kQuery, limits.lex));
  if (tokens.empty()) return InternalError("lexer returned no end token");
  Parser parser(std::move(tokens), limits);
  return parser.ParseFile();
}

}  // namespace omnigraph::compiler
