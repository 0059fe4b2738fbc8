// TextIndex's persisted form (a text index segment; docs/format/table.md, "Text index object").
// Every length and number is checked against the bytes left and the document count before use.
#include <cstring>

#include "common/error_codes.h"
#include "common/hash.h"
#include "engine/search/text_index.h"

namespace omnigraph::engine::search {

namespace {

constexpr std::string_view kMagic = "OGTXTIX1";

class Writer {
 public:
  template <class T>
  void Put(T v) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));  // little-endian hosts only, as every object
    out_.append(b, sizeof(T));
  }
  template <class T>
  void PutArray(const T* data, size_t n) {
    out_.append(reinterpret_cast<const char*>(data), n * sizeof(T));
  }
  void PutString(std::string_view s) {
    Put<uint32_t>(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  std::string Finish() {
    Put<uint64_t>(XxHash64(out_));
    return std::move(out_);
  }
  std::string out_;
};

class Reader {
 public:
  Reader(std::string_view in, std::string where) : in_(in), where_(std::move(where)) {}
  template <class T>
  Result<T> Get() {
    if (in_.size() - at_ < sizeof(T)) return Short();
    T v;
    std::memcpy(&v, in_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  // `n` values of T; the count is checked against the bytes left before anything is allocated.
  template <class T>
  Result<std::vector<T>> GetArray(uint64_t n) {
    if (n > (in_.size() - at_) / sizeof(T)) return Short();
    std::vector<T> v(n);
    if (n > 0) std::memcpy(v.data(), in_.data() + at_, n * sizeof(T));
    at_ += n * sizeof(T);
    return v;
  }
  Result<std::string> GetString() {
    OG_ASSIGN_OR_RETURN(uint32_t n, Get<uint32_t>());
    if (n > in_.size() - at_) return Short();
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }
  bool done() const { return at_ == in_.size(); }
  Status Bad(const std::string& what) const { return CorruptError(where_ + ": text index " + what); }

 private:
  Status Short() const { return Bad("ends early"); }
  std::string_view in_;
  std::string where_;
  size_t at_ = 0;
};

}  // namespace

std::string TextIndex::Encode(std::span<const uint64_t> labels) const {
  Writer w;
  w.out_.append(kMagic);
  w.Put<uint32_t>(kFormatVersion);
  const uint64_t n = doc_len_.size();
  w.Put<uint64_t>(n);
  w.PutArray(labels.data(), labels.size());
  w.PutArray(doc_len_.data(), n);
  w.PutArray(present_.data(), n);
  w.Put<uint64_t>(positions_.size());
  w.PutArray(positions_.data(), positions_.size());
  w.Put<uint64_t>(terms_.size());
  for (const auto& [term, list] : terms_) {
    w.PutString(term);
    w.Put<uint32_t>(static_cast<uint32_t>(list.size()));
    for (const Posting& p : list) {
      w.Put<uint32_t>(p.doc);
      w.Put<uint32_t>(p.tf);
      w.Put<uint32_t>(p.first_position);
    }
  }
  w.Put<uint64_t>(words_.size());
  for (const auto& [word, docs] : words_) {
    w.PutString(word);
    w.Put<uint32_t>(static_cast<uint32_t>(docs.size()));
    w.PutArray(docs.data(), docs.size());
  }
  return w.Finish();
}

Result<TextIndex::Decoded> TextIndex::Decode(std::string_view object, std::string_view key) {
  const std::string where(key);
  if (object.size() < kMagic.size() + 4 + 8 || object.substr(0, kMagic.size()) != kMagic) {
    return CorruptError(where + ": not a text index object");
  }
  uint32_t version;
  std::memcpy(&version, object.data() + kMagic.size(), 4);
  if (version > kFormatVersion) {
    return Status(ErrorCode::kFormatTooNew, where + ": text index format " + std::to_string(version) +
                                                " is newer than this build reads (" + std::to_string(kFormatVersion) +
                                                ")");
  }
  const std::string_view body = object.substr(0, object.size() - 8);
  uint64_t sum;
  std::memcpy(&sum, object.data() + body.size(), 8);
  if (XxHash64(body) != sum) return CorruptError(where + ": text index checksum mismatch");
  Reader r(body.substr(kMagic.size() + 4), where);
  Decoded out;
  TextIndex& idx = out.index;
  OG_ASSIGN_OR_RETURN(uint64_t n, r.Get<uint64_t>());
  if (n > UINT32_MAX) return r.Bad("has too many documents");
  OG_ASSIGN_OR_RETURN(out.labels, r.GetArray<uint64_t>(n));
  OG_ASSIGN_OR_RETURN(idx.doc_len_, r.GetArray<uint32_t>(n));
  OG_ASSIGN_OR_RETURN(idx.present_, r.GetArray<uint8_t>(n));
  for (uint64_t d = 0; d < n; ++d) {
    if (idx.present_[d] > 1 || (!idx.present_[d] && idx.doc_len_[d] != 0)) return r.Bad("has a bad document");
    idx.docs_ += idx.present_[d];
    idx.total_tokens_ += idx.doc_len_[d];
  }
  OG_ASSIGN_OR_RETURN(uint64_t npos, r.Get<uint64_t>());
  OG_ASSIGN_OR_RETURN(idx.positions_, r.GetArray<uint32_t>(npos));
  OG_ASSIGN_OR_RETURN(uint64_t nterms, r.Get<uint64_t>());
  for (uint64_t t = 0; t < nterms; ++t) {
    OG_ASSIGN_OR_RETURN(std::string term, r.GetString());
    OG_ASSIGN_OR_RETURN(uint32_t count, r.Get<uint32_t>());
    OG_ASSIGN_OR_RETURN(std::vector<uint32_t> raw, r.GetArray<uint32_t>(uint64_t{count} * 3));
    std::vector<Posting> list(count);
    for (uint32_t k = 0; k < count; ++k) {
      Posting p{raw[3 * k], raw[3 * k + 1], raw[3 * k + 2]};
      if (p.doc >= n || (k > 0 && p.doc <= list[k - 1].doc) || p.tf == 0 || p.tf > idx.doc_len_[p.doc] ||
          uint64_t{p.first_position} + p.tf > npos) {
        return r.Bad("has a bad posting");
      }
      list[k] = p;
    }
    if (list.empty() || !idx.terms_.emplace(std::move(term), std::move(list)).second) return r.Bad("repeats a term");
  }
  OG_ASSIGN_OR_RETURN(uint64_t nwords, r.Get<uint64_t>());
  for (uint64_t i = 0; i < nwords; ++i) {
    OG_ASSIGN_OR_RETURN(std::string word, r.GetString());
    OG_ASSIGN_OR_RETURN(uint32_t count, r.Get<uint32_t>());
    OG_ASSIGN_OR_RETURN(std::vector<uint32_t> docs, r.GetArray<uint32_t>(count));
    for (uint32_t k = 0; k < count; ++k) {
      if (docs[k] >= n || (k > 0 && docs[k] <= docs[k - 1])) return r.Bad("has a bad word list");
    }
    if (docs.empty() || !idx.words_.emplace(std::move(word), std::move(docs)).second) return r.Bad("repeats a word");
  }
  if (!r.done()) return r.Bad("has trailing bytes");
  idx.ComputeMemory();
  return out;
}

}  // namespace omnigraph::engine::search
