// libFuzzer target for query parameter JSON (compiler/params.h, issue 15): any input must bind or
// fail with a typed InvalidArgument error (never crash, hang or throw); no message carries the JSON
// library's exception text; every bound F32 and Vector element is finite and inside the F32 range;
// a text that strict (duplicate-rejecting) parsing accepts is accepted by plain parsing too.
// Built when OG_BUILD_FUZZ is ON (clang, -fsanitize=fuzzer); seeds: tests/fuzz/params.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "compiler/params.h"

namespace {

using omnigraph::DataType;
using omnigraph::TypeKind;
using omnigraph::Value;
using omnigraph::compiler::ParamDecl;

ParamDecl Decl(std::string name, DataType type, bool nullable) {
  ParamDecl d;
  d.name = std::move(name);
  d.type = type;
  d.nullable = nullable;
  return d;
}

const std::vector<ParamDecl>& Decls() {
  static const std::vector<ParamDecl>* decls = [] {
    auto* d = new std::vector<ParamDecl>;
    const TypeKind scalars[] = {TypeKind::kString, TypeKind::kBlob, TypeKind::kBool,    TypeKind::kI32,
                                TypeKind::kI64,    TypeKind::kU32,  TypeKind::kU64,     TypeKind::kF32,
                                TypeKind::kF64,    TypeKind::kDate, TypeKind::kDateTime};
    char name = 'a';
    for (TypeKind k : scalars) d->push_back(Decl(std::string(1, name++), DataType::Scalar(k), true));
    d->push_back(Decl("v", DataType::Vector(3), true));
    d->push_back(Decl("l", DataType::List(TypeKind::kF32), true));
    d->push_back(Decl("t", DataType::List(TypeKind::kString), true));
    return d;
  }();
  return *decls;
}

void CheckFinite(const Value& v) {
  if (v.is_null()) return;
  if (v.kind() == TypeKind::kF32 && !omnigraph::FitsF32(v.float_value())) std::abort();
  if (v.kind() == TypeKind::kVector) {
    for (float f : v.vector_value()) {
      if (!omnigraph::FitsF32(f)) std::abort();
    }
  }
  if (v.kind() == TypeKind::kList) {
    for (const Value& item : v.list_value()) CheckFinite(item);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Messages may quote the input (a parse error shows the last token read): the check for
  // library text only holds for inputs that do not spell it themselves.
  const bool spelled = text.find("exception") != std::string_view::npos;
  auto bound = omnigraph::compiler::BindParamsJson(Decls(), text);
  if (!bound.ok()) {
    if (bound.status().category() != omnigraph::StatusCode::kInvalidArgument) std::abort();
    if (!spelled && bound.status().message().find("json.exception") != std::string::npos) std::abort();
  } else {
    for (const auto& [name, value] : *bound) CheckFinite(value);
  }
  auto strict = omnigraph::ParseJsonUnique(text, "fuzz");
  auto plain = omnigraph::ParseJson(text, "fuzz");
  if (strict.ok() && !plain.ok()) std::abort();
  if (!spelled && !plain.ok() && plain.status().message().find("json.exception") != std::string::npos) {
    std::abort();
  }
  return 0;
}
