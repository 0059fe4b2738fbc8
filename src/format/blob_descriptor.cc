#include "format/blob_descriptor.h"

#include <cstring>

#include "common/error_codes.h"

namespace omnigraph::format {

namespace {
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
}  // namespace

std::string BlobDescriptor::Encode() const {
  std::string out;
  out.reserve(16 + file.size());
  PutU64(&out, offset);
  PutU64(&out, length);
  out += file;
  return out;
}

Result<BlobDescriptor> BlobDescriptor::Decode(std::string_view bytes) {
  if (bytes.size() <= 16) {
    return CorruptError("blob descriptor of " + std::to_string(bytes.size()) + " bytes (needs 16 + a file name)");
  }
  BlobDescriptor d;
  d.offset = GetU64(bytes.data());
  d.length = GetU64(bytes.data() + 8);
  d.file = std::string(bytes.substr(16));
  if (d.offset + d.length < d.offset) return CorruptError("blob descriptor range overflows");
  return d;
}

}  // namespace omnigraph::format
