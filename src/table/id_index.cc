#include "table/id_index.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <set>

#include "common/error_codes.h"
#include "common/hash.h"
#include "table/table_layout.h"

namespace omnigraph::table {
namespace {

constexpr char kMagic[8] = {'O', 'G', 'I', 'D', 'X', 'S', 'G', '1'};
constexpr uint32_t kSegmentVersion = 1;

void PutU64(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
uint64_t GetU64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint32_t GetU32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
// False on truncation or a varint longer than `max_bits` allows.
bool GetVarint(std::string_view in, size_t* pos, int max_bits, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < max_bits + 7; shift += 7) {
    if (*pos >= in.size()) return false;
    const auto b = static_cast<unsigned char>(in[(*pos)++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      if (max_bits < 64 && (v >> max_bits) != 0) return false;
      *out = v;
      return true;
    }
  }
  return false;
}

}  // namespace

IdSegment IdSegment::Build(std::vector<std::pair<std::string, uint64_t>> entries) {
  std::sort(entries.begin(), entries.end());
  IdSegment s;
  size_t bytes = 0;
  for (const auto& e : entries) bytes += e.first.size();
  s.keys_.reserve(bytes);
  s.offsets_.reserve(entries.size() + 1);
  s.addresses_.reserve(entries.size());
  for (const auto& e : entries) {
    s.keys_.append(e.first);
    s.offsets_.push_back(s.keys_.size());
    s.addresses_.push_back(e.second);
  }
  return s;
}

std::string IdSegment::Serialize() const {
  std::string body;
  body.reserve(keys_.size() + addresses_.size() * 6);
  for (size_t i = 0; i < addresses_.size(); ++i) {
    PutVarint(body, offsets_[i + 1] - offsets_[i]);
    body.append(keys_, offsets_[i], offsets_[i + 1] - offsets_[i]);
    PutVarint(body, RowAddressFragment(addresses_[i]));
    PutVarint(body, RowAddressOffset(addresses_[i]));
  }
  std::string out;
  out.reserve(body.size() + 40);
  out.append(kMagic, 8);
  PutU32(out, kSegmentVersion);
  PutU32(out, 0);
  PutU64(out, addresses_.size());
  PutU64(out, body.size());
  out.append(body);
  PutU64(out, XxHash64(out));
  return out;
}

Result<IdSegment> IdSegment::Parse(std::string_view bytes, std::string_view what) {
  auto bad = [&](std::string_view why) {
    return CorruptError(std::string(what) + ": id segment " + std::string(why));
  };
  if (bytes.size() < 40) return bad("is truncated");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return bad("has a bad magic");
  const uint64_t sum = GetU64(bytes.data() + bytes.size() - 8);
  if (XxHash64(bytes.substr(0, bytes.size() - 8)) != sum) return bad("checksum mismatch");
  if (GetU32(bytes.data() + 8) != kSegmentVersion) return bad("has an unknown version");
  if (GetU32(bytes.data() + 12) != 0) return bad("has unknown flags");
  const uint64_t count = GetU64(bytes.data() + 16);
  const uint64_t body_len = GetU64(bytes.data() + 24);
  if (body_len != bytes.size() - 40 || count > body_len / 3) return bad("has inconsistent lengths");
  std::string_view body = bytes.substr(32, body_len);
  IdSegment s;
  s.offsets_.reserve(count + 1);
  s.addresses_.reserve(count);
  s.keys_.reserve(body_len);
  size_t pos = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t len = 0, frag = 0, off = 0;
    if (!GetVarint(body, &pos, 32, &len) || len > body.size() - pos) return bad("has a bad entry");
    s.keys_.append(body.substr(pos, len));
    pos += len;
    if (!GetVarint(body, &pos, 32, &frag) || !GetVarint(body, &pos, 32, &off))
      return bad("has a bad entry");
    s.offsets_.push_back(s.keys_.size());
    s.addresses_.push_back(MakeRowAddress(static_cast<uint32_t>(frag), static_cast<uint32_t>(off)));
    if (i > 0 && s.key(i - 1) > s.key(i)) return bad("is not sorted");
  }
  if (pos != body.size()) return bad("has trailing bytes");
  return s;
}

std::pair<size_t, size_t> IdSegment::EqualRange(std::string_view key) const {
  size_t lo = 0, hi = size();
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (this->key(mid) < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < size() && this->key(end) == key) ++end;
  return {lo, end};
}

Result<IndexSegmentMeta> WriteIdSegment(const TableVersion& version, FieldId key_field,
                                        std::vector<uint32_t> fragment_ids,
                                        std::shared_ptr<const IdSegment> segment) {
  IndexSegmentMeta meta;
  meta.kind = "id";
  meta.field_id = key_field;
  std::sort(fragment_ids.begin(), fragment_ids.end());
  meta.fragment_ids = std::move(fragment_ids);
  meta.entries = segment->size();
  meta.keys.push_back(NewIndexDir() + std::string(kIdSegmentFile));
  OG_RETURN_IF_ERROR(
      version.store().PutIfAbsent(version.AbsoluteKey(meta.keys[0]), segment->Serialize()));
  version.cache()->PutIdSegment(meta.keys[0], std::move(segment));
  return meta;
}

namespace {
Result<std::shared_ptr<const IdSegment>> LoadSegment(const TableVersion& v,
                                                     const std::string& rel) {
  if (auto seg = v.cache()->GetIdSegment(rel)) return seg;
  const std::string key = v.AbsoluteKey(rel);
  OG_ASSIGN_OR_RETURN(std::string bytes, v.store().Get(key));
  OG_ASSIGN_OR_RETURN(IdSegment parsed, IdSegment::Parse(bytes, key));
  auto seg = std::make_shared<const IdSegment>(std::move(parsed));
  v.cache()->PutIdSegment(rel, seg);
  return seg;
}
}  // namespace

Status WriteMergedIdSegment(const TableVersion& base, FieldId key_field,
                            const std::set<uint32_t>& present,
                            std::vector<std::pair<std::string, uint64_t>> entries,
                            std::vector<uint32_t> fragment_ids,
                            std::vector<IndexSegmentMeta>* indexes, uint64_t max_merged_entries) {
  uint64_t total = entries.size();
  while (!indexes->empty()) {
    const IndexSegmentMeta& prev = indexes->back();
    if (prev.kind != "id" || prev.field_id != key_field) break;
    if (prev.entries > 2 * total || total + prev.entries > max_merged_entries) break;
    OG_ASSIGN_OR_RETURN(auto seg, LoadSegment(base, prev.keys[0]));
    for (size_t i = 0; i < seg->size(); ++i) {
      if (present.count(RowAddressFragment(seg->address(i))))
        entries.emplace_back(std::string(seg->key(i)), seg->address(i));
    }
    fragment_ids.insert(fragment_ids.end(), prev.fragment_ids.begin(), prev.fragment_ids.end());
    total += prev.entries;
    indexes->pop_back();
  }
  auto seg = std::make_shared<const IdSegment>(IdSegment::Build(std::move(entries)));
  OG_ASSIGN_OR_RETURN(IndexSegmentMeta meta,
                      WriteIdSegment(base, key_field, std::move(fragment_ids), seg));
  indexes->push_back(std::move(meta));
  return Status::Ok();
}

Result<IdIndex> IdIndex::Open(const TableVersion& version) {
  const Manifest& m = version.manifest();
  const FieldId key_field = m.schema.key_field_id;
  if (key_field == 0) return InvalidArgumentError("table has no key column; it has no id index");
  IdIndex idx;
  std::set<uint32_t> covered;
  for (const IndexSegmentMeta& s : m.indexes) {
    if (s.kind != "id" || s.field_id != key_field) continue;
    OG_ASSIGN_OR_RETURN(std::shared_ptr<const IdSegment> seg, LoadSegment(version, s.keys[0]));
    idx.segments_.push_back(std::move(seg));
    covered.insert(s.fragment_ids.begin(), s.fragment_ids.end());
  }
  std::vector<std::pair<std::string, uint64_t>> extra;
  const Field* kf = m.schema.FindById(key_field);
  for (const FragmentMeta& f : m.fragments) {
    FragmentState st;
    st.id = f.id;
    OG_ASSIGN_OR_RETURN(st.deletion, version.LoadDeletion(f));
    idx.fragments_.push_back(std::move(st));
    if (covered.count(f.id)) continue;
    ++idx.uncovered_;
    OG_ASSIGN_OR_RETURN(auto reader, version.OpenFragment(f));
    if (!reader->ColumnIndex(key_field)) {
      return CorruptError(reader->key() + ": fragment lacks the key column '" + kf->name + "'");
    }
    FieldId ids[] = {key_field};
    OG_ASSIGN_OR_RETURN(format::Batch b, reader->ReadAll(ids));
    const format::Column& c = b.column(0);
    for (size_t i = 0; i < c.length(); ++i) {
      extra.emplace_back(std::string(c.string_at(i)),
                         MakeRowAddress(f.id, static_cast<uint32_t>(i)));
    }
  }
  if (!extra.empty())
    idx.segments_.push_back(std::make_shared<const IdSegment>(IdSegment::Build(std::move(extra))));
  return idx;
}

bool IdIndex::IsLive(uint64_t addr) const {
  const uint32_t fid = RowAddressFragment(addr);
  auto it = std::lower_bound(fragments_.begin(), fragments_.end(), fid,
                             [](const FragmentState& f, uint32_t x) { return f.id < x; });
  if (it == fragments_.end() || it->id != fid) return false;
  return !it->deletion->Contains(RowAddressOffset(addr));
}

std::optional<uint64_t> IdIndex::Lookup(std::string_view id) const {
  std::optional<uint64_t> best;
  for (const auto& seg : segments_) {
    auto [lo, hi] = seg->EqualRange(id);
    for (size_t i = lo; i < hi; ++i) {
      uint64_t a = seg->address(i);
      if ((!best || a > *best) && IsLive(a)) best = a;
    }
  }
  return best;
}

std::vector<uint64_t> IdIndex::LookupAll(std::string_view id) const {
  std::vector<uint64_t> out;
  for (const auto& seg : segments_) {
    auto [lo, hi] = seg->EqualRange(id);
    for (size_t i = lo; i < hi; ++i) {
      if (IsLive(seg->address(i))) out.push_back(seg->address(i));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::optional<uint64_t>> IdIndex::LookupMany(std::span<const std::string> ids) const {
  std::vector<std::optional<uint64_t>> out;
  out.reserve(ids.size());
  for (const std::string& id : ids) out.push_back(Lookup(id));
  return out;
}

}  // namespace omnigraph::table
