// Per-device state kept between polls, by device key: the states in one
// vector, found through an open-addressing index of their places (linear
// probing, at most half full). A lookup reads one slot of the index and the
// state, where std::unordered_map follows a bucket and nodes allocated one
// by one, scattered over the heap: at 100,000 devices, cache misses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "probe/map_reader.h"

namespace netif_rx {

template <typename State>
class DeviceTable {
 public:
  // A state's place: valid until that state is removed, whatever is added.
  using Id = std::uint32_t;
  static constexpr Id kNone = UINT32_MAX;

  // The place of `key`'s state, added as `initial` when it has none; true
  // when added. `guess`: where it probably is (checked first; kNone: no
  // guess), e.g. the place of the key read at the same position last time,
  // which spares the index and reads the states in order.
  std::pair<Id, bool> find_or_add(const netif_rx_device_key& key, State initial, Id guess = kNone) {
    if (guess < entries_.size() && entries_[guess].used && entries_[guess].key == key)
      return {guess, false};
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::size_t slot = home(key);
    while (slots_[slot].id != kNone) {
      if (slots_[slot].key == key) return {slots_[slot].id, false};
      slot = (slot + 1) & mask();
    }
    Id id = 0;
    if (free_.empty()) {
      id = static_cast<Id>(entries_.size());
      entries_.push_back({key, std::move(initial), true});
    } else {
      id = free_.back();
      free_.pop_back();
      entries_[id] = {key, std::move(initial), true};
    }
    slots_[slot] = {key, id};
    ++size_;
    return {id, true};
  }

  // The place of `key`'s state, or kNone.
  Id find(const netif_rx_device_key& key) const {
    if (size_ == 0) return kNone;
    for (std::size_t slot = home(key); slots_[slot].id != kNone; slot = (slot + 1) & mask()) {
      if (slots_[slot].key == key) return slots_[slot].id;
    }
    return kNone;
  }

  State& operator[](Id id) { return entries_[id].state; }
  const State& operator[](Id id) const { return entries_[id].state; }

  // Removes `key`'s state; false when it had none.
  bool remove(const netif_rx_device_key& key) {
    if (size_ == 0) return false;
    for (std::size_t slot = home(key); slots_[slot].id != kNone; slot = (slot + 1) & mask()) {
      if (slots_[slot].key == key) {
        release(slots_[slot].id);
        vacate(slot);
        return true;
      }
    }
    return false;
  }

  // Removes every state for which `pred(state)` is true.
  template <typename Pred>
  void remove_if(Pred pred) {
    for (Entry& entry : entries_) {
      if (!entry.used || !pred(entry.state)) continue;
      const netif_rx_device_key key = entry.key;  // the entry is cleared
      remove(key);
    }
  }

  std::size_t size() const { return size_; }

 private:
  struct Entry {
    netif_rx_device_key key{};
    State state{};
    bool used = false;
  };
  struct Slot {
    netif_rx_device_key key{};
    Id id = kNone;  // kNone: empty
  };

  std::size_t mask() const { return slots_.size() - 1; }
  // The slot a key's probe starts at: the hash's high bits, the well mixed ones.
  std::size_t home(const netif_rx_device_key& key) const {
    return static_cast<std::size_t>(static_cast<std::uint64_t>(DeviceKeyHash{}(key)) >> shift_);
  }

  void release(Id id) {
    entries_[id] = Entry{};
    free_.push_back(id);
    --size_;
  }

  // Empties `slot`, moving back the later slots of its run whose probe
  // started at or before it, so that every key stays reachable from its home.
  void vacate(std::size_t slot) {
    std::size_t next = slot;
    while (true) {
      next = (next + 1) & mask();
      if (slots_[next].id == kNone) break;
      const std::size_t wanted = home(slots_[next].key);
      // Stays when its home lies cyclically in (slot, next].
      const bool stays =
          slot <= next ? (slot < wanted && wanted <= next) : (slot < wanted || wanted <= next);
      if (stays) continue;
      slots_[slot] = slots_[next];
      slot = next;
    }
    slots_[slot] = Slot{};
  }

  void grow() {
    const std::size_t capacity = slots_.empty() ? 16 : slots_.size() * 2;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(capacity, Slot{});
    shift_ = 64;
    for (std::size_t n = capacity; n > 1; n >>= 1) --shift_;
    for (const Slot& moved : old) {
      if (moved.id == kNone) continue;
      std::size_t slot = home(moved.key);
      while (slots_[slot].id != kNone) slot = (slot + 1) & mask();
      slots_[slot] = moved;
    }
  }

  std::vector<Slot> slots_;     // a power of two of them
  unsigned shift_ = 64;         // 64 - log2(slots_.size())
  std::vector<Entry> entries_;  // by Id
  std::vector<Id> free_;        // places of removed states, reused first
  std::size_t size_ = 0;
};

}  // namespace netif_rx
