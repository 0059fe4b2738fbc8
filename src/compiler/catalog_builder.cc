#include "compiler/catalog_builder.h"

#include <re2/re2.h>

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "common/error_codes.h"

namespace omnigraph::compiler {
namespace {

Status Err(ErrorCode code, const SourceSpan& span, std::string msg) {
  return Status(code, std::move(msg)).WithSpan(span);
}

bool IsReserved(std::string_view name) {
  return name == "id" || name == "src" || name == "dst" || name.substr(0, 4) == "_row";
}

bool ParseScalar(std::string_view name, TypeKind* out) {
  static const std::map<std::string_view, TypeKind> kMap = {
      {"String", TypeKind::kString}, {"Blob", TypeKind::kBlob},        {"Bool", TypeKind::kBool},
      {"I32", TypeKind::kI32},       {"I64", TypeKind::kI64},          {"U32", TypeKind::kU32},
      {"U64", TypeKind::kU64},       {"F32", TypeKind::kF32},          {"F64", TypeKind::kF64},
      {"Date", TypeKind::kDate},     {"DateTime", TypeKind::kDateTime}};
  auto it = kMap.find(name);
  if (it == kMap.end()) return false;
  *out = it->second;
  return true;
}

// Canonical spelling of a bound: integers without leading zeros ("-0" -> "0"); floats as written.
std::string CanonicalNumber(const AstLiteral& lit) {
  if (lit.kind != AstLiteral::Kind::kInt) return lit.text;
  bool neg = !lit.text.empty() && lit.text[0] == '-';
  std::string digits = lit.text.substr(neg ? 1 : 0);
  size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  return (neg && digits != "0" ? "-" : "") + digits;
}

AnnotationValue ToValue(const AstLiteral& lit) {
  AnnotationValue v;
  v.text = lit.text;
  switch (lit.kind) {
    case AstLiteral::Kind::kString: v.kind = AnnotationValue::Kind::kString; break;
    case AstLiteral::Kind::kInt: v.kind = AnnotationValue::Kind::kInt; break;
    case AstLiteral::Kind::kFloat: v.kind = AnnotationValue::Kind::kFloat; break;
    case AstLiteral::Kind::kBool: v.kind = AnnotationValue::Kind::kBool; break;
  }
  return v;
}

Annotation ToAnnotation(const AstAnnotation& a) {
  Annotation out;
  out.name = a.name;
  out.has_parens = a.has_parens;
  for (const auto& arg : a.args) {
    if (arg.name.empty()) {
      out.positional = ToValue(arg.value);
    } else {
      out.named.emplace_back(arg.name, ToValue(arg.value));
    }
  }
  return out;
}

// Reads the single positional string argument of @description / @instruction / @rename_from.
Result<std::string> StringArg(const AstAnnotation& a) {
  if (a.args.size() != 1 || !a.args[0].name.empty() || a.args[0].value.kind != AstLiteral::Kind::kString) {
    return Err(ErrorCode::kSchemaBadAnnotation, a.span,
               "@" + a.name + " takes exactly one string argument: @" + a.name + "(\"...\")");
  }
  return a.args[0].value.text;
}

// Applies a documentation annotation to `meta`; returns false if `a` is not one.
Result<bool> ApplyMetaAnnotation(const AstAnnotation& a, Metadata* meta) {
  std::string* slot = nullptr;
  if (a.name == "description") {
    slot = &meta->description;
  } else if (a.name == "instruction") {
    slot = &meta->instruction;
  } else if (a.name == "rename_from") {
    slot = &meta->rename_from;
  } else {
    return false;
  }
  OG_ASSIGN_OR_RETURN(std::string s, StringArg(a));
  if (!slot->empty()) {
    return Err(ErrorCode::kSchemaDuplicateAnnotation, a.span, "@" + a.name + " given twice");
  }
  if (s.empty()) {
    return Err(ErrorCode::kSchemaBadAnnotation, a.span, "@" + a.name + " needs a non-empty string");
  }
  *slot = std::move(s);
  return true;
}

// Per-property facts collected from property-level annotations.
struct PropFlags {
  bool key = false;
  bool unique = false;
  SourceSpan key_span;
  SourceSpan embed_span;
  SourceSpan span;
};

struct TypeDraft {
  std::vector<Property> props;
  std::vector<PropFlags> flags;
  std::map<std::string, size_t, std::less<>> by_name;
  std::vector<SourceSpan> spans;  // property name spans (for errors)
};

class Builder {
 public:
  explicit Builder(const AstSchema& ast) : ast_(ast) {}

  Result<Catalog> Run() {
    OG_RETURN_IF_ERROR(CheckTypeNames());
    std::vector<InterfaceType> ifaces;
    for (const auto& i : ast_.interfaces) {
      OG_ASSIGN_OR_RETURN(auto it, BuildInterface(i));
      iface_index_.emplace(it.name, ifaces.size());
      ifaces.push_back(std::move(it));
    }
    ifaces_ = &ifaces;
    std::vector<NodeType> nodes;
    for (const auto& n : ast_.nodes) {
      OG_ASSIGN_OR_RETURN(auto nt, BuildNode(n));
      nodes.push_back(std::move(nt));
    }
    std::vector<EdgeType> edges;
    for (const auto& e : ast_.edges) {
      OG_ASSIGN_OR_RETURN(auto et, BuildEdge(e));
      edges.push_back(std::move(et));
    }
    return Catalog(std::move(ifaces), std::move(nodes), std::move(edges));
  }

 private:
  Status CheckTypeNames() {
    std::map<std::string, std::string> seen;  // name -> what
    auto add = [&](const AstName& n, std::string what) -> Status {
      auto [it, fresh] = seen.emplace(n.name, what);
      if (!fresh) {
        return Err(ErrorCode::kSchemaDuplicateType, n.span,
                   "type `" + n.name + "` is already declared (as " + it->second + ")");
      }
      kinds_[n.name] = what;
      return Status::Ok();
    };
    // Report the later declaration in source order.
    struct Decl {
      const AstName* name;
      const char* what;
    };
    std::vector<Decl> all;
    for (const auto& i : ast_.interfaces) all.push_back({&i.name, "an interface"});
    for (const auto& n : ast_.nodes) all.push_back({&n.name, "a node type"});
    for (const auto& e : ast_.edges) all.push_back({&e.name, "an edge type"});
    std::stable_sort(all.begin(), all.end(), [](const Decl& a, const Decl& b) {
      return std::pair(a.name->span.line, a.name->span.column) < std::pair(b.name->span.line, b.name->span.column);
    });
    for (const auto& d : all) OG_RETURN_IF_ERROR(add(*d.name, d.what));
    return Status::Ok();
  }

  Result<Property> BuildPropertyType(const AstProperty& ap) {
    Property p;
    p.name = ap.name.name;
    if (IsReserved(p.name)) {
      return Err(ErrorCode::kSchemaReservedName, ap.name.span,
                 "`" + p.name +
                     "` is a reserved name (id, src, dst and _row* are physical "
                     "columns)");
    }
    const AstType& t = ap.type;
    p.nullable = t.nullable;
    TypeKind k;
    switch (t.kind) {
      case AstType::Kind::kScalar:
        if (!ParseScalar(t.scalar, &k)) {
          return Err(ErrorCode::kSchemaParse, t.span, "unknown type `" + t.scalar + "`");
        }
        p.type = DataType::Scalar(k);
        break;
      case AstType::Kind::kList:
        if (!ParseScalar(t.scalar, &k)) {
          return Err(ErrorCode::kSchemaParse, t.span, "unknown type `" + t.scalar + "`");
        }
        p.type = DataType::List(k);
        break;
      case AstType::Kind::kVector:
        if (t.dimension < 1 || t.dimension > 65536) {
          return Err(ErrorCode::kSchemaVectorDimension, t.span,
                     "Vector dimension must be between 1 and 65536, got " +
                         (t.dimension == std::numeric_limits<uint64_t>::max() ? std::string("a larger number")
                                                                              : std::to_string(t.dimension)));
        }
        p.type = DataType::Vector(static_cast<uint32_t>(t.dimension));
        break;
      case AstType::Kind::kEnum: {
        p.type = DataType::Scalar(TypeKind::kString);
        std::set<std::string> vals;
        for (const auto& v : t.enum_values) vals.insert(v.name);
        p.enum_values.assign(vals.begin(), vals.end());
        break;
      }
    }
    return p;
  }

  // Builds one property and applies its property-level annotations. `on_edge` rejects @key.
  Status AddProperty(const AstProperty& ap, bool on_edge, TypeDraft* d) {
    OG_ASSIGN_OR_RETURN(Property p, BuildPropertyType(ap));
    if (d->by_name.count(p.name)) {
      const Property& other = d->props[d->by_name[p.name]];
      return Err(ErrorCode::kSchemaDuplicateProperty, ap.name.span,
                 "property `" + p.name + "` is already declared" +
                     (other.interface_name.empty() ? std::string() : " (by interface `" + other.interface_name + "`)"));
    }
    PropFlags f;
    f.span = ap.name.span;
    std::set<std::string> seen_known;
    for (const auto& a : ap.annotations) {
      static const std::set<std::string, std::less<>> kKnown = {"key",   "unique", "index", "embed",
                                                                "range", "check",  "card"};
      if (kKnown.count(a.name)) {
        if (!seen_known.insert(a.name).second) {
          return Err(ErrorCode::kSchemaDuplicateAnnotation, a.span, "@" + a.name + " given twice");
        }
      }
      OG_ASSIGN_OR_RETURN(bool is_meta, ApplyMetaAnnotation(a, &p.meta));
      if (is_meta) continue;
      if (a.name == "key" || a.name == "unique" || a.name == "index") {
        if (a.has_parens) {
          return Err(ErrorCode::kSchemaBadAnnotation, a.span,
                     "property-level @" + a.name + " takes no arguments (the body form @" + a.name +
                         "(a, b) lists properties)");
        }
        if (a.name == "key") {
          if (on_edge) {
            return Err(ErrorCode::kSchemaKeyOnEdge, a.span,
                       "@key is not allowed on edge types (only node types have keys)");
          }
          f.key = true;
          f.key_span = a.span;
          OG_RETURN_IF_ERROR(CheckKeyable(p, a.span, "@key"));
        } else if (a.name == "unique") {
          f.unique = true;
          OG_RETURN_IF_ERROR(CheckKeyable(p, a.span, "@unique"));
        } else {
          OG_RETURN_IF_ERROR(SetIndex(&p, a.span));
        }
      } else if (a.name == "embed") {
        OG_RETURN_IF_ERROR(ParseEmbed(a, &p));
        f.embed_span = a.span;
      } else if (a.name == "range" || a.name == "check" || a.name == "card") {
        return Err(ErrorCode::kSchemaBadAnnotation, a.span,
                   "@" + a.name + " is not a property annotation" +
                       (a.name == "card" ? std::string(" (it follows an edge's endpoints)")
                                         : " (write it in the type body: @" + a.name + "(" + p.name + ", ...))"));
      } else {
        p.meta.annotations.push_back(ToAnnotation(a));
      }
    }
    d->by_name.emplace(p.name, d->props.size());
    d->props.push_back(std::move(p));
    d->flags.push_back(f);
    d->spans.push_back(ap.name.span);
    return Status::Ok();
  }

  static Status CheckKeyable(const Property& p, const SourceSpan& span, std::string_view what) {
    TypeKind k = p.type.kind;
    if (k == TypeKind::kBlob || k == TypeKind::kList || k == TypeKind::kVector) {
      return Err(ErrorCode::kSchemaConstraintType, span,
                 std::string(what) + " is not allowed on `" + p.name + "` of type " + DataTypeSource(p.type));
    }
    return Status::Ok();
  }

  static Status SetIndex(Property* p, const SourceSpan& span) {
    IndexKind k = IndexKindFor(p->type, p->is_enum());
    if (k == IndexKind::kNone) {
      return Err(ErrorCode::kSchemaConstraintType, span,
                 "@index is not available for `" + p->name + "` of type " + DataTypeSource(p->type) +
                     " (lists and Blob have no index)");
    }
    p->index = k;
    return Status::Ok();
  }

  static Status ParseEmbed(const AstAnnotation& a, Property* p) {
    if (p->type.kind != TypeKind::kVector) {
      return Err(ErrorCode::kSchemaBadEmbed, a.span,
                 "@embed is only allowed on Vector properties; `" + p->name + "` is " + DataTypeSource(p->type));
    }
    if (a.args.empty() || !a.args[0].name.empty() || a.args[0].value.kind != AstLiteral::Kind::kString) {
      return Err(ErrorCode::kSchemaBadAnnotation, a.span,
                 "@embed takes the source property name: @embed(\"text\"[, model=\"...\"])");
    }
    EmbedSpec spec;
    spec.source = a.args[0].value.text;
    for (size_t i = 1; i < a.args.size(); ++i) {
      const auto& arg = a.args[i];
      if (arg.name != "model" || arg.value.kind != AstLiteral::Kind::kString || !spec.model.empty()) {
        return Err(ErrorCode::kSchemaBadAnnotation, arg.span, "@embed accepts only one named argument: model=\"...\"");
      }
      spec.model = arg.value.text;
    }
    p->embed = std::move(spec);
    return Status::Ok();
  }

  // Validates @embed sources once every property of the type is known.
  static Status CheckEmbeds(const TypeDraft& d) {
    for (size_t i = 0; i < d.props.size(); ++i) {
      const Property& p = d.props[i];
      if (!p.embed) continue;
      auto it = d.by_name.find(p.embed->source);
      if (it == d.by_name.end()) {
        return Err(ErrorCode::kSchemaUnknownProperty, d.flags[i].embed_span,
                   "@embed names unknown property `" + p.embed->source + "`");
      }
      const Property& src = d.props[it->second];
      if (src.type.kind != TypeKind::kString) {
        return Err(ErrorCode::kSchemaBadEmbed, d.flags[i].embed_span,
                   "@embed source `" + src.name + "` must be a String property, not " + DataTypeSource(src.type));
      }
    }
    return Status::Ok();
  }

  Result<InterfaceType> BuildInterface(const AstInterface& ai) {
    InterfaceType it;
    it.name = ai.name.name;
    TypeDraft d;
    for (const auto& ap : ai.properties) OG_RETURN_IF_ERROR(AddProperty(ap, false, &d));
    for (size_t i = 0; i < d.props.size(); ++i) {
      if (d.flags[i].key) {
        OG_RETURN_IF_ERROR(CheckNullableKey(d.props[i], d.flags[i].key_span));
        it.key.push_back(d.props[i].name);
        d.props[i].index = IndexKindFor(d.props[i].type, d.props[i].is_enum());
      }
      if (d.flags[i].unique) it.uniques.push_back({d.props[i].name});
    }
    it.properties = std::move(d.props);
    return it;
  }

  static Status CheckNullableKey(const Property& p, const SourceSpan& span) {
    if (p.nullable) {
      return Err(ErrorCode::kSchemaNullableKey, span,
                 "key property `" + p.name + "` must not be nullable (remove the `?`)");
    }
    return Status::Ok();
  }

  // Resolves the property names of a body constraint; `allow_endpoints` admits src/dst.
  static Result<std::vector<std::string>> ResolveNames(const AstConstraint& c, const TypeDraft& d, bool allow_endpoints,
                                                       std::string_view what) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& n : c.properties) {
      bool endpoint = allow_endpoints && (n.name == "src" || n.name == "dst");
      if (!endpoint && !d.by_name.count(n.name)) {
        return Err(ErrorCode::kSchemaUnknownProperty, n.span,
                   std::string(what) + " names unknown property `" + n.name + "`");
      }
      if (!seen.insert(n.name).second) {
        return Err(ErrorCode::kSchemaDuplicateAnnotation, n.span, std::string(what) + " lists `" + n.name + "` twice");
      }
      out.push_back(n.name);
    }
    return out;
  }

  Status ApplyInterfaces(const AstNode& an, NodeType* nt, TypeDraft* d) {
    std::set<std::string> listed;
    for (const auto& in : an.implements) {
      auto it = iface_index_.find(in.name);
      if (it == iface_index_.end()) {
        auto k = kinds_.find(in.name);
        return Err(ErrorCode::kSchemaUnknownInterface, in.span,
                   "`implements` names `" + in.name + "`, which is " +
                       (k == kinds_.end() ? std::string("not declared") : k->second + ", not an interface"));
      }
      if (!listed.insert(in.name).second) {
        return Err(ErrorCode::kSchemaDuplicateAnnotation, in.span, "interface `" + in.name + "` is listed twice");
      }
      const InterfaceType& iface = (*ifaces_)[it->second];
      nt->interfaces.push_back(iface.name);
      for (const auto& ip : iface.properties) {
        Property p = ip;
        p.interface_name = iface.name;
        auto existing = d->by_name.find(p.name);
        if (existing != d->by_name.end()) {
          Property other = d->props[existing->second];
          other.interface_name = iface.name;
          if (other == p) continue;  // the same property from two interfaces
          return Err(ErrorCode::kSchemaDuplicateProperty, in.span,
                     "interface `" + iface.name + "` declares `" + p.name + "` differently from interface `" +
                         d->props[existing->second].interface_name + "`");
        }
        d->by_name.emplace(p.name, d->props.size());
        d->props.push_back(std::move(p));
        d->flags.push_back(PropFlags{false, false, in.span, in.span, in.span});
        d->spans.push_back(in.span);
      }
      if (!iface.key.empty()) {
        if (!nt->key.empty()) {
          return Err(ErrorCode::kSchemaDuplicateAnnotation, in.span,
                     "node `" + nt->name + "` inherits a @key from more than one interface");
        }
        nt->key = iface.key;
      }
      for (const auto& u : iface.uniques) nt->uniques.push_back(u);
    }
    return Status::Ok();
  }

  Result<NodeType> BuildNode(const AstNode& an) {
    NodeType nt;
    nt.id = an.decl_index + 1;
    nt.name = an.name.name;
    OG_RETURN_IF_ERROR(ApplyTypeAnnotations(an.annotations, an.body_annotations, "node", &nt.meta));
    TypeDraft d;
    OG_RETURN_IF_ERROR(ApplyInterfaces(an, &nt, &d));
    bool key_inherited = !nt.key.empty();
    SourceSpan key_span = an.name.span;
    for (const auto& ap : an.properties) OG_RETURN_IF_ERROR(AddProperty(ap, false, &d));
    OG_RETURN_IF_ERROR(CheckEmbeds(d));
    // Property-level @key / @unique of the node's own properties.
    std::vector<std::string> prop_key;
    for (size_t i = 0; i < d.props.size(); ++i) {
      if (!d.props[i].interface_name.empty()) continue;
      if (d.flags[i].key) {
        prop_key.push_back(d.props[i].name);
        key_span = d.flags[i].key_span;
      }
      if (d.flags[i].unique) nt.uniques.push_back({d.props[i].name});
    }
    if (!prop_key.empty()) {
      if (key_inherited) {
        return Err(ErrorCode::kSchemaDuplicateAnnotation, key_span,
                   "node `" + nt.name + "` already has a @key from an interface");
      }
      nt.key = prop_key;
    }
    for (const auto& c : an.constraints) {
      switch (c.kind) {
        case AstConstraint::Kind::kKey: {
          if (!nt.key.empty()) {
            return Err(ErrorCode::kSchemaDuplicateAnnotation, c.span, "node `" + nt.name + "` has more than one @key");
          }
          OG_ASSIGN_OR_RETURN(nt.key, ResolveNames(c, d, false, "@key"));
          key_span = c.span;
          for (const auto& k : nt.key) {
            OG_RETURN_IF_ERROR(CheckKeyable(d.props[d.by_name[k]], c.span, "@key"));
          }
          break;
        }
        case AstConstraint::Kind::kUnique: {
          OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, false, "@unique"));
          for (const auto& k : names) {
            OG_RETURN_IF_ERROR(CheckKeyable(d.props[d.by_name[k]], c.span, "@unique"));
          }
          nt.uniques.push_back(std::move(names));
          break;
        }
        case AstConstraint::Kind::kIndex: {
          OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, false, "@index"));
          for (const auto& k : names) OG_RETURN_IF_ERROR(SetIndex(&d.props[d.by_name[k]], c.span));
          break;
        }
        case AstConstraint::Kind::kRange: {
          OG_ASSIGN_OR_RETURN(auto rc, BuildRange(c, d));
          nt.ranges.push_back(std::move(rc));
          break;
        }
        case AstConstraint::Kind::kCheck: {
          OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, false, "@check"));
          const Property& p = d.props[d.by_name[names[0]]];
          if (p.type.kind != TypeKind::kString) {
            return Err(ErrorCode::kSchemaConstraintType, c.span,
                       "@check needs a String property; `" + p.name + "` is " + DataTypeSource(p.type));
          }
          RE2::Options opts;
          opts.set_log_errors(false);
          RE2 re(c.pattern, opts);
          if (!re.ok()) {
            return Err(ErrorCode::kSchemaBadRegex, c.pattern_span,
                       "invalid regular expression for @check(" + p.name + "): " + re.error());
          }
          nt.checks.push_back(CheckConstraint{p.name, c.pattern});
          break;
        }
      }
    }
    // Key members are ordered by property id (declaration order), as the existing implementation
    // does, so `@key(b, a)` and `@key(a, b)` derive the same node ids.
    std::sort(nt.key.begin(), nt.key.end(),
              [&](const std::string& a, const std::string& b) { return d.by_name[a] < d.by_name[b]; });
    for (const auto& k : nt.key) {
      Property& p = d.props[d.by_name[k]];
      OG_RETURN_IF_ERROR(CheckNullableKey(p, key_span));
      p.index = IndexKindFor(p.type, p.is_enum());
    }
    for (size_t i = 0; i < d.props.size(); ++i) d.props[i].id = static_cast<uint32_t>(i + 1);
    nt.properties = std::move(d.props);
    return nt;
  }

  static Result<RangeConstraint> BuildRange(const AstConstraint& c, const TypeDraft& d) {
    OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, false, "@range"));
    const Property& p = d.props[d.by_name.find(names[0])->second];
    if (!IsNumericKind(p.type.kind)) {
      return Err(ErrorCode::kSchemaConstraintType, c.span,
                 "@range needs a numeric property; `" + p.name + "` is " + PropertyTypeSource(p));
    }
    RangeConstraint rc;
    rc.property = p.name;
    if (c.min) rc.min = CanonicalNumber(*c.min);
    if (c.max) rc.max = CanonicalNumber(*c.max);
    if (rc.min && rc.max && *rc.MinValue() > *rc.MaxValue()) {
      return Err(ErrorCode::kSchemaBadRange, c.span,
                 "@range(" + p.name + ") has min " + *rc.min + " greater than max " + *rc.max);
    }
    return rc;
  }

  Status ApplyTypeAnnotations(const std::vector<AstAnnotation>& header, const std::vector<AstAnnotation>& body,
                              std::string_view what, Metadata* meta) {
    for (const auto* list : {&header, &body}) {
      for (const auto& a : *list) {
        OG_ASSIGN_OR_RETURN(bool is_meta, ApplyMetaAnnotation(a, meta));
        if (is_meta) continue;
        if (a.name == "key" && what == "edge") {
          return Err(ErrorCode::kSchemaKeyOnEdge, a.span,
                     "@key is not allowed on edge types (only node types have keys)");
        }
        static const std::set<std::string, std::less<>> kMisplaced = {"key",   "unique", "index", "embed",
                                                                      "range", "check",  "card"};
        if (kMisplaced.count(a.name)) {
          return Err(ErrorCode::kSchemaBadAnnotation, a.span,
                     "@" + a.name + " is not allowed here (on a " + std::string(what) + " declaration)");
        }
        meta->annotations.push_back(ToAnnotation(a));
      }
    }
    return Status::Ok();
  }

  Result<EdgeType> BuildEdge(const AstEdge& ae) {
    EdgeType et;
    et.id = ae.decl_index + 1;
    et.name = ae.name.name;
    for (const AstName* end : {&ae.from, &ae.to}) {
      auto k = kinds_.find(end->name);
      if (k == kinds_.end() || k->second != "a node type") {
        return Err(ErrorCode::kSchemaUnknownEndpoint, end->span,
                   "edge `" + et.name + "` endpoint `" + end->name + "` is " +
                       (k == kinds_.end() ? std::string("not declared") : k->second + ", not a node type"));
      }
    }
    et.from_type = ae.from.name;
    et.to_type = ae.to.name;
    if (ae.card) {
      const AstCard& c = *ae.card;
      if (c.min > UINT32_MAX || (c.max && *c.max > UINT32_MAX)) {
        return Err(ErrorCode::kSchemaBadCardinality, c.span,
                   "@card bounds must be at most " + std::to_string(UINT32_MAX));
      }
      if (c.max && *c.max < c.min) {
        return Err(ErrorCode::kSchemaBadCardinality, c.span,
                   "@card minimum " + std::to_string(c.min) + " is greater than maximum " + std::to_string(*c.max));
      }
      et.card.min = static_cast<uint32_t>(c.min);
      if (c.max) et.card.max = static_cast<uint32_t>(*c.max);
    }
    OG_RETURN_IF_ERROR(ApplyTypeAnnotations(ae.annotations, ae.body_annotations, "edge", &et.meta));
    TypeDraft d;
    for (const auto& ap : ae.properties) OG_RETURN_IF_ERROR(AddProperty(ap, true, &d));
    OG_RETURN_IF_ERROR(CheckEmbeds(d));
    for (size_t i = 0; i < d.props.size(); ++i) {
      if (d.flags[i].unique) et.uniques.push_back({d.props[i].name});
    }
    for (const auto& c : ae.constraints) {
      switch (c.kind) {
        case AstConstraint::Kind::kKey:
          return Err(ErrorCode::kSchemaKeyOnEdge, c.span,
                     "@key is not allowed on edge types (only node types have keys)");
        case AstConstraint::Kind::kRange:
        case AstConstraint::Kind::kCheck:
          return Err(ErrorCode::kSchemaEdgeConstraint, c.span, "edge bodies allow only @unique and @index constraints");
        case AstConstraint::Kind::kUnique: {
          OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, true, "@unique"));
          for (const auto& k : names) {
            if (k == "src" || k == "dst") continue;
            OG_RETURN_IF_ERROR(CheckKeyable(d.props[d.by_name[k]], c.span, "@unique"));
          }
          et.uniques.push_back(std::move(names));
          break;
        }
        case AstConstraint::Kind::kIndex: {
          OG_ASSIGN_OR_RETURN(auto names, ResolveNames(c, d, true, "@index"));
          for (const auto& k : names) {
            if (k == "src" || k == "dst") continue;  // endpoints are always indexed
            OG_RETURN_IF_ERROR(SetIndex(&d.props[d.by_name[k]], c.span));
          }
          break;
        }
      }
    }
    for (size_t i = 0; i < d.props.size(); ++i) d.props[i].id = static_cast<uint32_t>(i + 1);
    et.properties = std::move(d.props);
    return et;
  }

  const AstSchema& ast_;
  std::map<std::string, std::string> kinds_;  // type name -> "a node type" / ...
  std::map<std::string, size_t> iface_index_;
  const std::vector<InterfaceType>* ifaces_ = nullptr;
};

}  // namespace

Result<Catalog> BuildCatalog(const AstSchema& ast) { return Builder(ast).Run(); }

Result<Catalog> CompileSchema(std::string_view source, const SchemaParseLimits& limits) {
  OG_ASSIGN_OR_RETURN(auto ast, ParseSchema(source, limits));
  return BuildCatalog(ast);
}

}  // namespace omnigraph::compiler
