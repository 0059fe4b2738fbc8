#include "engine/derived/adjacency.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "common/error_codes.h"
#include "common/hash.h"
#include "common/thread_pool.h"
#include "engine/derived/row_remap.h"
#include "table/scanner.h"

namespace omnigraph::engine {

namespace {
// The upper 32 bits of a hash slot: those of its id's hash (a filter before comparing ids).
constexpr uint64_t kTagMask = ~uint64_t{0xffffffff};
}  // namespace

Result<format::Column> ScanColumn(const table::TableVersion& v, const std::string& name,
                                  PodVector<uint64_t>* addresses) {
  table::ScanOptions o;
  o.columns = std::vector<std::string>{name};
  o.with_row_address = addresses != nullptr;
  OG_ASSIGN_OR_RETURN(format::Batch b, v.ScanAll(o));
  if (addresses != nullptr) {
    const format::Column* a = b.ColumnByName(table::kRowAddressColumn);
    if (a == nullptr) return InternalError("scan returned no row addresses");
    auto span = a->u64_values();
    addresses->assign(span.begin(), span.end());
  }
  if (b.num_columns() == 0) return InternalError("scan returned no column " + name);
  return b.column(0);
}

uint64_t TableOrdinals::SlotCount(uint64_t n) { return std::max<uint64_t>(2, std::bit_ceil(2 * n)); }

void TableOrdinals::ViewBuilt() {
  id_offsets_ = built_.id_offsets;
  id_bytes_ = built_.id_bytes;
  addresses_ = built_.addresses;
  by_address_ = built_.by_address;
  slots_ = built_.slots;
}

Status TableOrdinals::FillSlots(uint32_t from, bool* duplicate) {
  // Hashes in parallel, then one insertion pass in ordinal order (keeps the first of duplicates).
  const size_t n = size() - from;
  std::vector<uint64_t> hashes(n);
  constexpr size_t kChunk = size_t{1} << 16;
  OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) {
    for (size_t i = c * kChunk; i < std::min(n, (c + 1) * kChunk); ++i) {
      hashes[i] = XxHash64(id(static_cast<uint32_t>(from + i)));
    }
    return Status::Ok();
  }));
  PodVector<uint64_t>& slots = built_.slots;
  const uint64_t mask = slots.size() - 1;
  for (size_t j = 0; j < n; ++j) {
    const uint64_t i = from + j;
    const uint64_t tag = hashes[j] & kTagMask;
    for (uint64_t at = hashes[j] & mask;; at = (at + 1) & mask) {
      const uint64_t slot = slots[at];
      if (slot == 0) {
        slots[at] = tag | (i + 1);
        break;
      }
      const auto other = static_cast<uint32_t>(slot) - 1;
      if ((slot & kTagMask) == tag && id(other) == id(static_cast<uint32_t>(i))) {
        *duplicate = true;
        break;
      }
    }
  }
  return Status::Ok();
}

namespace {
// Removes the entry at `hole` from a linear-probing table (backward shift): each later entry of
// its cluster whose home slot does not lie cyclically in (hole, j] moves into the hole. `home`
// gives an entry's home slot.
template <class Home>
void EraseSlot(PodVector<uint64_t>* slots, uint64_t hole, Home home) {
  PodVector<uint64_t>& s = *slots;
  const uint64_t mask = s.size() - 1;
  for (uint64_t j = (hole + 1) & mask; s[j] != 0; j = (j + 1) & mask) {
    const uint64_t h = home(s[j]);
    const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
    if (!stays) {
      s[hole] = s[j];
      hole = j;
    }
  }
  s[hole] = 0;
}
}  // namespace

std::shared_ptr<const TableOrdinals> TableOrdinals::Append(const std::shared_ptr<const TableOrdinals>& base,
                                                           const format::Column& ids,
                                                           std::span<const uint64_t> addresses) {
  auto t = std::make_shared<TableOrdinals>();
  const std::shared_ptr<const TableOrdinals>& flat = base->tail_ != nullptr ? base->base_ : base;
  t->base_ = flat;
  t->id_offsets_ = flat->id_offsets_;
  t->id_bytes_ = flat->id_bytes_;
  t->addresses_ = flat->addresses_;
  t->by_address_ = flat->by_address_;
  t->slots_ = flat->slots_;
  auto tail = std::make_shared<Tail>();
  const uint32_t old_rows = base->tail_rows();
  const size_t add = ids.length(), rows = old_rows + add;
  tail->id_offsets.reserve(rows + 1);
  tail->id_offsets.push_back(0);
  if (old_rows > 0) {  // the base's tail first
    const Tail& before = *base->tail_;
    tail->id_offsets.insert(tail->id_offsets.end(), before.id_offsets.begin() + 1, before.id_offsets.end());
    tail->id_bytes = before.id_bytes;
    tail->addresses.assign(before.addresses.begin(), before.addresses.end());
  }
  auto offsets = ids.offsets();
  const uint64_t to = tail->id_bytes.size();
  for (size_t i = 1; i <= add; ++i) tail->id_offsets.push_back(to + (offsets[i] - offsets[0]));
  if (add > 0) tail->id_bytes.append(ids.string_data().substr(offsets[0], offsets[add] - offsets[0]));
  tail->addresses.insert(tail->addresses.end(), addresses.begin(), addresses.end());
  // The tail's hash: the base tail's entries carried over while their count stays, so only the
  // new rows are hashed (else all of the tail's).
  uint32_t hashed = 0;
  if (old_rows > 0 && SlotCount(rows) == base->tail_->slots.size()) {
    tail->slots.assign(base->tail_->slots.begin(), base->tail_->slots.end());
    hashed = old_rows;
  } else {
    tail->slots.assign(SlotCount(rows), 0);
  }
  t->tail_ = tail;
  // The first of a repeated id is kept; `duplicate`: an id is on two rows.
  bool duplicate = false;
  const uint64_t mask = tail->slots.size() - 1;
  for (uint32_t j = hashed; j < rows; ++j) {
    const std::string_view id = t->TailId(j);
    const uint64_t h = XxHash64(id), tag = h & kTagMask;
    for (uint64_t at = h & mask;; at = (at + 1) & mask) {
      const uint64_t slot = tail->slots[at];
      if (slot == 0) {
        tail->slots[at] = tag | (uint64_t{j} + 1);
        break;
      }
      if ((slot & kTagMask) == tag && t->TailId(static_cast<uint32_t>(slot) - 1) == id) {
        duplicate = true;
        break;
      }
    }
    if (j >= old_rows && flat->Find(id)) duplicate = true;  // (earlier tail rows were checked when added)
  }
  t->unique_ids_ = base->unique_ids_ && !duplicate;
  return t;
}

Result<std::shared_ptr<const TableOrdinals>> TableOrdinals::Flatten(const TableOrdinals& o) {
  auto t = std::make_shared<TableOrdinals>();
  Arrays& a = t->built_;
  const uint32_t nb = static_cast<uint32_t>(o.addresses_.size()), n = o.size();
  const uint64_t b0 = o.id_offsets_.empty() ? 0 : o.id_offsets_[0];
  a.id_offsets.reserve(uint64_t{n} + 1);
  for (uint32_t i = 0; i <= nb; ++i) a.id_offsets.push_back(o.id_offsets_.empty() ? 0 : o.id_offsets_[i] - b0);
  a.id_bytes.assign(o.id_bytes_.substr(b0, a.id_offsets.back()));
  a.addresses.assign(o.addresses_.begin(), o.addresses_.end());
  a.by_address.assign(o.by_address_.begin(), o.by_address_.end());
  if (o.tail_ != nullptr) {
    const uint64_t to = a.id_bytes.size();
    for (size_t i = 1; i < o.tail_->id_offsets.size(); ++i) a.id_offsets.push_back(to + o.tail_->id_offsets[i]);
    a.id_bytes += o.tail_->id_bytes;
    a.addresses.insert(a.addresses.end(), o.tail_->addresses.begin(), o.tail_->addresses.end());
    for (uint32_t i = nb; i < n; ++i) a.by_address.push_back(i);  // the tail's addresses follow the base's
  }
  // The base's hash carried over while its slot count stays (then only the tail's rows hashed).
  const bool carry = SlotCount(n) == o.slots_.size();
  if (carry) {
    a.slots.assign(o.slots_.begin(), o.slots_.end());
  } else {
    a.slots.assign(SlotCount(n), 0);
  }
  t->ViewBuilt();
  bool duplicate = false;
  OG_RETURN_IF_ERROR(t->FillSlots(carry ? nb : 0, &duplicate));
  t->unique_ids_ = !duplicate && (carry ? o.unique_ids_ : true);
  return std::shared_ptr<const TableOrdinals>(std::move(t));
}

Result<std::shared_ptr<const TableOrdinals>> TableOrdinals::Extend(const std::shared_ptr<const TableOrdinals>& given,
                                                                   const table::Manifest& base_manifest,
                                                                   const table::TableVersion& version) {
  using Out = std::shared_ptr<const TableOrdinals>;
  OG_ASSIGN_OR_RETURN(std::optional<VersionStep> step, RelateVersions(base_manifest, version));
  // (Nothing kept, as after a compaction: built instead, and so persisted.)
  if (!step || step->old_rows != given->size() || (step->kept_rows == 0 && given->size() > 0)) return Out();
  const RowRemap& remap = step->remap;
  const auto& fragments = version.manifest().fragments;
  table::ScanOptions o;
  o.columns = std::vector<std::string>{"id"};
  o.with_row_address = true;
  o.fragment_ids.emplace();
  for (size_t i = step->kept_fragments; i < fragments.size(); ++i) o.fragment_ids->push_back(fragments[i].id);
  OG_ASSIGN_OR_RETURN(format::Batch b, version.ScanAll(o));
  const format::Column* addr = b.ColumnByName(table::kRowAddressColumn);
  if (addr == nullptr || b.num_columns() == 0) return InternalError("scan returned no ids or row addresses");
  const format::Column& ids = b.column(0);
  const uint32_t n0 = given->size();
  const size_t kept = step->kept_rows, add = ids.length(), n = kept + add;
  if (n >= UINT32_MAX) return ResourceExhaustedError("table " + version.prefix() + " has too many rows for ordinals");
  auto fresh_addresses = addr->u64_values();
  const uint64_t last = n0 == 0                   ? 0
                        : given->tail_ != nullptr ? given->tail_->addresses.back()
                                                  : given->addresses_[given->by_address_[n0 - 1]];
  for (size_t i = 0; i < add; ++i) {  // the new rows follow the old ones: by_address stays sorted
    const uint64_t prev = i > 0 ? fresh_addresses[i - 1] : last;
    if ((i > 0 || n0 > 0) && fresh_addresses[i] <= prev) return Out();
  }
  // Rows appended only: the same ordinals, or a tail over the shared arrays when it is short.
  if (remap.identity() && kept == n0) {
    if (add == 0) return given;
    if (given->CanAppend(add)) {
      return Append(given, ids, fresh_addresses);
    }
  }
  std::shared_ptr<const TableOrdinals> flat = given;
  if (given->tail_ != nullptr) {
    OG_ASSIGN_OR_RETURN(flat, Flatten(*given));
  }
  const TableOrdinals& base = *flat;
  auto t = std::make_shared<TableOrdinals>();
  Arrays& a = t->built_;
  // The surviving rows' ids and addresses: the runs between dropped ranges, copied.
  auto offsets = ids.offsets();
  const uint64_t fresh_bytes = add == 0 ? 0 : offsets[add] - offsets[0];
  a.id_offsets.reserve(n + 1);
  a.id_offsets.push_back(0);
  a.id_bytes.reserve(base.id_bytes_.size() + fresh_bytes);
  a.addresses.reserve(n);
  auto copy_run = [&](uint32_t lo, uint32_t hi) {
    if (lo >= hi) return;
    const uint64_t b0 = base.id_offsets_[lo], b1 = base.id_offsets_[hi], to = a.id_bytes.size();
    for (uint32_t i = lo; i < hi; ++i) a.id_offsets.push_back(base.id_offsets_[i + 1] - b0 + to);
    a.id_bytes.append(base.id_bytes_.substr(b0, b1 - b0));
    a.addresses.insert(a.addresses.end(), base.addresses_.begin() + lo, base.addresses_.begin() + hi);
  };
  uint32_t at = 0;
  for (const auto& [lo, hi] : remap.ranges()) {
    copy_run(at, lo);
    at = hi;
  }
  copy_run(at, n0);
  if (a.addresses.size() != kept) return InternalError("ordinals remap kept a row count other than its step's");
  const uint64_t shift = a.id_offsets.back() - (add == 0 ? 0 : offsets[0]);
  for (size_t i = 1; i <= add; ++i) a.id_offsets.push_back(offsets[i] + shift);
  if (add > 0) a.id_bytes.append(ids.string_data().substr(offsets[0], fresh_bytes));
  a.addresses.insert(a.addresses.end(), fresh_addresses.begin(), fresh_addresses.end());
  // Ordinals by address: the survivors' in their old order (addresses do not change), then the new.
  a.by_address.reserve(n);
  for (uint32_t old : base.by_address_) {
    const uint32_t m = remap(old);
    if (m != kDropped) a.by_address.push_back(m);
  }
  for (size_t i = kept; i < n; ++i) a.by_address.push_back(static_cast<uint32_t>(i));
  // The hash slots. With the same slot count the old ones are copied and the dropped rows' entries
  // erased (exact only when ids are unique: a dropped row's id could belong to a later row, which
  // then holds it), the rest renumbered; otherwise every id is hashed again.
  const bool same_slots = SlotCount(n) == base.slots_.size();
  bool carry = same_slots && (remap.identity() || base.unique_ids_);
  bool duplicate = false;
  if (carry) {
    a.slots.assign(base.slots_.begin(), base.slots_.end());
    const uint64_t mask = a.slots.size() - 1;
    auto home = [&](uint64_t slot) { return XxHash64(base.id(static_cast<uint32_t>(slot) - 1)) & mask; };
    bool missed = false;  // a dropped row without an entry (never, with unique ids): hash again
    for (const auto& [lo, hi] : remap.ranges()) {
      for (uint32_t dropped = lo; dropped < hi && !missed; ++dropped) {
        missed = true;
        for (uint64_t s = XxHash64(base.id(dropped)) & mask; a.slots[s] != 0; s = (s + 1) & mask) {
          if (static_cast<uint32_t>(a.slots[s]) - 1 == dropped) {
            EraseSlot(&a.slots, s, home);
            missed = false;
            break;
          }
        }
      }
    }
    if (missed) {
      carry = false;
      a.slots.assign(SlotCount(n), 0);
    } else if (!remap.identity()) {
      for (uint64_t& slot : a.slots) {
        if (slot != 0) slot = (slot & kTagMask) | (uint64_t{remap(static_cast<uint32_t>(slot) - 1)} + 1);
      }
    }
  } else {
    a.slots.assign(SlotCount(n), 0);
  }
  t->ViewBuilt();
  OG_RETURN_IF_ERROR(t->FillSlots(carry ? static_cast<uint32_t>(kept) : 0, &duplicate));
  t->unique_ids_ = !duplicate && (carry ? base.unique_ids_ : true);
  return Out(std::move(t));
}

Result<std::shared_ptr<const TableOrdinals>> TableOrdinals::Build(const table::TableVersion& version) {
  auto t = std::make_shared<TableOrdinals>();
  Arrays& a = t->built_;
  OG_ASSIGN_OR_RETURN(format::Column ids, ScanColumn(version, "id", &a.addresses));
  const size_t n = ids.length();
  if (n >= UINT32_MAX) {
    return ResourceExhaustedError("table " + version.prefix() + " has too many rows for ordinals");
  }
  if (a.addresses.size() != n) return InternalError("scan returned a row address count other than its rows");
  // Ids as offsets (rebased to 0) + bytes.
  auto offsets = ids.offsets();
  const uint64_t base = n == 0 ? 0 : offsets[0];
  a.id_offsets.resize(n + 1);
  for (size_t i = 0; i <= n; ++i) a.id_offsets[i] = n == 0 ? 0 : offsets[i] - base;
  a.id_bytes = std::string(ids.string_data().substr(base, a.id_offsets[n]));
  a.slots.assign(SlotCount(n), 0);
  a.by_address.resize(n);
  t->ViewBuilt();  // the arrays are sized: the views stay valid while they are filled
  bool duplicate = false;
  OG_RETURN_IF_ERROR(t->FillSlots(0, &duplicate));
  t->unique_ids_ = !duplicate;
  // Ordinals by address (scan order is usually address order already).
  std::iota(a.by_address.begin(), a.by_address.end(), uint32_t{0});
  if (!std::is_sorted(a.addresses.begin(), a.addresses.end())) {
    std::vector<std::pair<uint64_t, uint32_t>> pairs(n);
    for (size_t i = 0; i < n; ++i) pairs[i] = {a.addresses[i], static_cast<uint32_t>(i)};
    std::sort(pairs.begin(), pairs.end());
    for (size_t i = 0; i < n; ++i) a.by_address[i] = pairs[i].second;
  }
  return std::shared_ptr<const TableOrdinals>(std::move(t));
}

std::optional<uint32_t> TableOrdinals::Find(std::string_view id) const {
  const uint64_t h = XxHash64(id), tag = h & kTagMask;
  if (!slots_.empty()) {  // the (base) arrays' rows first: they come first in scan order
    const uint64_t mask = slots_.size() - 1;
    for (uint64_t at = h & mask; slots_[at] != 0; at = (at + 1) & mask) {
      const uint64_t slot = slots_[at];
      if ((slot & kTagMask) == tag) {
        const uint32_t ordinal = static_cast<uint32_t>(slot) - 1;
        if (this->id(ordinal) == id) return ordinal;
      }
    }
  }
  if (tail_ == nullptr) return std::nullopt;
  const PodVector<uint64_t>& slots = tail_->slots;
  const uint64_t mask = slots.size() - 1;
  for (uint64_t at = h & mask; slots[at] != 0; at = (at + 1) & mask) {
    const uint64_t slot = slots[at];
    if ((slot & kTagMask) == tag && TailId(static_cast<uint32_t>(slot) - 1) == id) {
      return static_cast<uint32_t>(addresses_.size()) + static_cast<uint32_t>(slot) - 1;
    }
  }
  return std::nullopt;
}

std::optional<uint32_t> TableOrdinals::FromAddress(uint64_t address) const {
  auto it = std::lower_bound(by_address_.begin(), by_address_.end(), address,
                             [&](uint32_t ordinal, uint64_t a) { return addresses_[ordinal] < a; });
  if (it != by_address_.end() && addresses_[*it] == address) return *it;
  if (tail_ == nullptr) return std::nullopt;
  const auto& tail = tail_->addresses;  // ascending
  auto t = std::lower_bound(tail.begin(), tail.end(), address);
  if (t == tail.end() || *t != address) return std::nullopt;
  return static_cast<uint32_t>(addresses_.size() + static_cast<size_t>(t - tail.begin()));
}

Result<std::shared_ptr<const Csr>> Csr::Build(const table::TableVersion& edges, const TableOrdinals& src,
                                              const TableOrdinals& dst, bool same_table) {
  table::ScanOptions o;
  o.columns = std::vector<std::string>{"src", "dst"};
  OG_ASSIGN_OR_RETURN(format::Batch b, edges.ScanAll(o));
  auto c = std::make_shared<Csr>();
  c->same_table_ = same_table;
  c->edge_rows_ = edges.row_count();
  const uint32_t ns = src.size(), nd = dst.size();
  // (src ordinal, dst ordinal, edge ordinal) of every edge with live endpoints.
  std::vector<uint32_t> es, ed, ee;
  const size_t n = b.num_rows();
  es.reserve(n);
  ed.reserve(n);
  ee.reserve(n);
  if (n > 0) {
    // Endpoint ids -> ordinals (hash probes: the bulk of a cold build), in parallel chunks.
    const format::Column& sc = b.column(0);
    const format::Column& dc = b.column(1);
    constexpr uint32_t kMissing = UINT32_MAX;
    std::vector<uint32_t> so(n), dor(n);
    constexpr size_t kChunk = size_t{1} << 16;
    OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor((n + kChunk - 1) / kChunk, [&](size_t c) -> Status {
      for (size_t r = c * kChunk; r < std::min(n, (c + 1) * kChunk); ++r) {
        so[r] = src.Find(sc.string_at(r)).value_or(kMissing);
        dor[r] = dst.Find(dc.string_at(r)).value_or(kMissing);
      }
      return Status::Ok();
    }));
    for (size_t r = 0; r < n; ++r) {
      if (so[r] == kMissing || dor[r] == kMissing) continue;
      es.push_back(so[r]);
      ed.push_back(dor[r]);
      ee.push_back(static_cast<uint32_t>(r));
    }
  }
  auto fill = [&](const std::vector<uint32_t>& key, const std::vector<uint32_t>& other, uint32_t nkeys,
                  PodVector<uint64_t>* offsets, PodVector<uint32_t>* nodes, PodVector<uint32_t>* eds) {
    offsets->assign(static_cast<size_t>(nkeys) + 1, 0);
    for (uint32_t k : key) ++(*offsets)[k + 1];
    for (uint32_t i = 0; i < nkeys; ++i) (*offsets)[i + 1] += (*offsets)[i];
    std::vector<uint64_t> pos(offsets->begin(), offsets->end() - 1);
    nodes->resize(key.size());
    eds->resize(key.size());
    for (size_t i = 0; i < key.size(); ++i) {
      uint64_t p = pos[key[i]]++;
      (*nodes)[p] = other[i];
      (*eds)[p] = ee[i];
    }
    // Sort each list by (neighbour, edge ordinal).
    std::vector<std::pair<uint32_t, uint32_t>> tmp;
    for (uint32_t k = 0; k < nkeys; ++k) {
      uint64_t a = (*offsets)[k], z = (*offsets)[k + 1];
      if (z - a < 2) continue;
      tmp.clear();
      for (uint64_t p = a; p < z; ++p) tmp.emplace_back((*nodes)[p], (*eds)[p]);
      if (std::is_sorted(tmp.begin(), tmp.end())) continue;
      std::sort(tmp.begin(), tmp.end());
      for (uint64_t p = a; p < z; ++p) {
        (*nodes)[p] = tmp[p - a].first;
        (*eds)[p] = tmp[p - a].second;
      }
    }
  };
  Arrays& a = c->built_;
  OG_RETURN_IF_ERROR(ThreadPool::Default().ParallelFor(2, [&](size_t side) -> Status {
    if (side == 0)
      fill(es, ed, ns, &a.out_offsets, &a.out_nodes, &a.out_edges);
    else
      fill(ed, es, nd, &a.in_offsets, &a.in_nodes, &a.in_edges);
    return Status::Ok();
  }));
  if (same_table) {
    a.self_loop.assign((static_cast<size_t>(ns) + 63) / 64, 0);
    for (size_t i = 0; i < es.size(); ++i) {
      if (es[i] == ed[i]) a.self_loop[es[i] / 64] |= uint64_t{1} << (es[i] % 64);
    }
  }
  c->ViewBuilt();
  return std::shared_ptr<const Csr>(std::move(c));
}

void Csr::ViewBuilt() {
  out_offsets_ = built_.out_offsets;
  in_offsets_ = built_.in_offsets;
  out_nodes_ = built_.out_nodes;
  out_edges_ = built_.out_edges;
  in_nodes_ = built_.in_nodes;
  in_edges_ = built_.in_edges;
  self_loop_ = built_.self_loop;
}

bool Csr::HasEdge(uint32_t s, uint32_t d) const {
  if (s >= num_src()) return false;
  auto nodes = OutNodes(s);
  return std::binary_search(nodes.begin(), nodes.end(), d);
}

EdgeEnds EdgeEnds::Build(const Csr& csr) {
  EdgeEnds e;
  e.ends.assign(csr.edge_rows(), Ends{kNone, kNone});
  for (uint32_t s = 0; s < csr.num_src(); ++s) {
    auto nodes = csr.OutNodes(s);
    auto edges = csr.OutEdges(s);
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (edges[k] >= e.ends.size()) continue;  // never (edge ordinals < edge_rows())
      e.ends[edges[k]] = Ends{s, nodes[k]};
    }
  }
  return e;
}

}  // namespace omnigraph::engine
