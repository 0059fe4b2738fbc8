// Standard base64 (RFC 4648, with padding) for Blob values in NDJSON ("base64:...").
#pragma once

#include <string>
#include <string_view>

namespace omnigraph {

std::string Base64Encode(std::string_view bytes);
// False on characters outside the alphabet, bad padding or a bad length.
bool Base64Decode(std::string_view text, std::string* out);

}  // namespace omnigraph
