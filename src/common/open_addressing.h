// Growth of a linear-probing hash table whose slots carry their full `hash` and a `code` that is 0
// for an empty slot (StringCodes::Build, KeyCoder::Codes): one helper, so that the two tables
// cannot drift apart.
#pragma once

#include <cstddef>
#include <vector>

namespace omnigraph {

// Doubles `*slots` (a power of two) and reinserts every used slot at its hash's new position.
template <class Slot>
void DoubleOpenAddressing(std::vector<Slot>* slots) {
  std::vector<Slot> old(slots->size() * 2);
  old.swap(*slots);
  const size_t mask = slots->size() - 1;
  for (const Slot& s : old) {
    if (s.code == 0) continue;
    size_t j = s.hash & mask;
    while ((*slots)[j].code != 0) j = (j + 1) & mask;
    (*slots)[j] = s;
  }
}

}  // namespace omnigraph
