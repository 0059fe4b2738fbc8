#include "engine/validate/load_group.h"

#include <map>
#include <utility>

namespace omnigraph::engine {

uint64_t TypeSegment::memory_bytes() const {
  uint64_t n = lines.capacity() * sizeof(uint64_t) + flags.capacity() + ids.memory_bytes() + srcs.memory_bytes() +
               dsts.memory_bytes();
  for (const auto& v : values) n += v.memory_bytes();
  return n;
}

size_t TypeGroup::PropertyIndex(std::string_view name) const {
  const auto& props = properties();
  for (size_t i = 0; i < props.size(); ++i) {
    if (props[i].name == name) return i;
  }
  return props.size();
}

void TypeGroup::Add(TypeSegment segment) {
  if (segment.size() == 0) return;
  rows += segment.size();
  segments.push_back(std::move(segment));
}

TypeSegmentBuilder::TypeSegmentBuilder(const std::vector<compiler::Property>& properties)
    : ids(DataType::Scalar(TypeKind::kString)),
      srcs(DataType::Scalar(TypeKind::kString)),
      dsts(DataType::Scalar(TypeKind::kString)) {
  values.reserve(properties.size());
  for (const auto& p : properties) values.emplace_back(p.type);
}

TypeSegment TypeSegmentBuilder::Finish() {
  TypeSegment s;
  s.lines = std::move(lines);
  s.flags = std::move(flags);
  lines.clear();
  flags.clear();
  s.ids = ids.Finish();
  s.srcs = srcs.Finish();
  s.dsts = dsts.Finish();
  s.values.reserve(values.size());
  for (auto& v : values) s.values.push_back(v.Finish());
  return s;
}

std::vector<TypeGroup> GroupByType(const std::vector<LoadRecord>& records) {
  static const Value kNull;
  std::vector<TypeGroup> groups;
  std::vector<TypeSegmentBuilder> builders;
  std::map<std::string, size_t> index;
  for (const auto& r : records) {
    auto [it, fresh] = index.emplace(r.type_name(), groups.size());
    if (fresh) {
      TypeGroup g;
      g.name = r.type_name();
      g.is_edge = r.is_edge;
      g.node = r.node;
      g.edge = r.edge;
      builders.emplace_back(g.properties());
      groups.push_back(std::move(g));
    }
    TypeSegmentBuilder& b = builders[it->second];
    b.lines.push_back(r.line);
    b.flags.push_back(static_cast<uint8_t>((r.id_given ? kIdGiven : 0) | (r.strict ? kStrict : 0)));
    b.ids.AppendString(r.id);
    if (r.is_edge) {
      b.srcs.AppendString(r.src);
      b.dsts.AppendString(r.dst);
    }
    for (size_t i = 0; i < b.values.size(); ++i) {
      const Value& v = i < r.values.size() ? r.values[i] : kNull;
      if (v.is_null()) {
        b.values[i].AppendNull();
      } else if (b.values[i].type().kind == TypeKind::kBlob) {
        b.values[i].AppendString(v.string_value());  // raw payload bytes, as the parser keeps them
      } else if (!b.values[i].Append(v).ok()) {
        b.values[i].AppendNull();  // not a value of the property's type: the checks ignore it
      }
    }
  }
  for (size_t i = 0; i < groups.size(); ++i) groups[i].Add(builders[i].Finish());
  return groups;
}

}  // namespace omnigraph::engine
