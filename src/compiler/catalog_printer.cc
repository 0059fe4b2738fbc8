// Catalog::ToSource: prints a catalog back to .pg source that compiles to an identical catalog
// (the round-trip property schema_golden_test.cc checks). Types print in id order so ids re-derive.
#include <string>

#include "compiler/catalog.h"

namespace omnigraph::compiler {
namespace {

std::string Quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\0': out += "\\0"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          static constexpr char kHex[] = "0123456789ABCDEF";
          out += "\\u{";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
          out += "}";
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string ValueSource(const AnnotationValue& v) {
  return v.kind == AnnotationValue::Kind::kString ? Quote(v.text) : v.text;
}

std::string AnnotationSource(const Annotation& a) {
  std::string s = "@" + a.name;
  if (!a.has_parens) return s;
  s += "(";
  bool first = true;
  if (a.positional) {
    s += ValueSource(*a.positional);
    first = false;
  }
  for (const auto& [k, v] : a.named) {
    if (!first) s += ", ";
    s += k + "=" + ValueSource(v);
    first = false;
  }
  return s + ")";
}

std::string MetaSource(const Metadata& m) {
  std::string s;
  if (!m.description.empty()) s += " @description(" + Quote(m.description) + ")";
  if (!m.instruction.empty()) s += " @instruction(" + Quote(m.instruction) + ")";
  if (!m.rename_from.empty()) s += " @rename_from(" + Quote(m.rename_from) + ")";
  for (const auto& a : m.annotations) s += " " + AnnotationSource(a);
  return s;
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += ", ";
    s += names[i];
  }
  return s;
}

// One property line. Index and key are printed as body constraints by the caller, except in
// interfaces where the property-level forms are the only ones.
std::string PropertySource(const Property& p, bool interface_form, bool is_key, bool is_unique) {
  std::string s = "  " + p.name + ": " + PropertyTypeSource(p);
  if (interface_form) {
    if (is_key) s += " @key";
    if (is_unique) s += " @unique";
    if (p.index != IndexKind::kNone) s += " @index";
  }
  if (p.embed) {
    s += " @embed(" + Quote(p.embed->source);
    if (!p.embed->model.empty()) s += ", model=" + Quote(p.embed->model);
    s += ")";
  }
  return s + MetaSource(p.meta) + "\n";
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v) {
    if (x == s) return true;
  }
  return false;
}

void PrintIndexes(const std::vector<Property>& props, const std::vector<std::string>& key, std::string* out) {
  for (const auto& p : props) {
    if (p.index != IndexKind::kNone && !Contains(key, p.name)) *out += "  @index(" + p.name + ")\n";
  }
}

void PrintNode(const Catalog& cat, const NodeType& n, std::string* out) {
  *out += "node " + n.name + MetaSource(n.meta);
  if (!n.interfaces.empty()) *out += " implements " + Join(n.interfaces);
  *out += " {\n";
  bool key_inherited = false;
  size_t inherited_uniques = 0;
  for (const auto& iname : n.interfaces) {
    if (const InterfaceType* it = cat.FindInterface(iname)) {
      key_inherited = key_inherited || !it->key.empty();
      inherited_uniques += it->uniques.size();
    }
  }
  for (const auto& p : n.properties) {
    if (p.interface_name.empty()) *out += PropertySource(p, false, false, false);
  }
  if (!n.key.empty() && !key_inherited) *out += "  @key(" + Join(n.key) + ")\n";
  for (size_t i = inherited_uniques; i < n.uniques.size(); ++i) {
    *out += "  @unique(" + Join(n.uniques[i]) + ")\n";
  }
  PrintIndexes(n.properties, n.key, out);
  for (const auto& r : n.ranges) {
    *out += "  @range(" + r.property + ", " + r.min.value_or("") + ".." + r.max.value_or("") + ")\n";
  }
  for (const auto& c : n.checks) *out += "  @check(" + c.property + ", " + Quote(c.pattern) + ")\n";
  *out += "}\n";
}

void PrintEdge(const EdgeType& e, std::string* out) {
  *out += "edge " + e.name + ": " + e.from_type + " -> " + e.to_type;
  if (!e.card.is_default()) {
    *out += " @card(" + std::to_string(e.card.min) + "..";
    if (e.card.max) *out += std::to_string(*e.card.max);
    *out += ")";
  }
  *out += MetaSource(e.meta);
  std::string body;
  for (const auto& p : e.properties) body += PropertySource(p, false, false, false);
  for (const auto& u : e.uniques) body += "  @unique(" + Join(u) + ")\n";
  PrintIndexes(e.properties, {}, &body);
  if (!body.empty()) {
    *out += " {\n" + body + "}";
  }
  *out += "\n";
}

}  // namespace

std::string Catalog::ToSource() const {
  std::string out;
  for (const auto& it : interfaces_) {
    out += "interface " + it.name + " {\n";
    for (const auto& p : it.properties) {
      bool unique = false;
      for (const auto& u : it.uniques) unique = unique || (u.size() == 1 && u[0] == p.name);
      out += PropertySource(p, true, Contains(it.key, p.name), unique);
    }
    out += "}\n";
  }
  size_t ni = 0, ei = 0;
  while (ni < nodes_.size() || ei < edges_.size()) {
    bool node_next = ei >= edges_.size() || (ni < nodes_.size() && nodes_[ni].id < edges_[ei].id);
    if (node_next) {
      PrintNode(*this, nodes_[ni++], &out);
    } else {
      PrintEdge(edges_[ei++], &out);
    }
  }
  return out;
}

}  // namespace omnigraph::compiler
