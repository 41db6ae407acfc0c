// A BpfMap in memory, with the kernel's semantics where the reader depends
// on them: get_next_key restarts from the first key after a deleted one,
// batches end with ENOENT, and an error can be injected per operation.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "probe/bpf_map.h"

namespace netif_rx::test {

class FakeBpfMap final : public BpfMap {
 public:
  using Bytes = std::vector<std::uint8_t>;

  FakeBpfMap(std::string name, std::size_t key_size, std::size_t value_size)
      : BpfMap(std::move(name)), key_size_(key_size), value_size_(value_size) {}

  template <typename Key, typename Value>
  void put(const Key& key, const Value& value) {
    entries_[bytes(&key, sizeof key)] = bytes(&value, sizeof value);
  }
  template <typename Key, typename Value>
  void put_array(const Key& key, const std::vector<Value>& values) {
    entries_[bytes(&key, sizeof key)] = bytes(values.data(), value_size_);
  }
  template <typename Key>
  bool contains(const Key& key) const {
    return entries_.count(bytes(&key, sizeof key)) != 0;
  }
  std::size_t size() const { return entries_.size(); }

  // Errors returned by the next calls of an operation (0: none).
  int lookup_error = 0;
  int remove_error = 0;
  int update_error = 0;
  int batch_error = 0;            // EINVAL: a kernel without batch operations
  std::uint32_t batch_limit = 0;  // > 0: at most this many keys per batch
  int batch_calls = 0;

  int lookup(const void* key, void* value) override {
    if (lookup_error != 0) return lookup_error;
    const auto found = entries_.find(bytes(key, key_size_));
    if (found == entries_.end()) return ENOENT;
    std::memcpy(value, found->second.data(), value_size_);
    return 0;
  }
  int next_key(const void* key, void* next) override {
    auto it = entries_.begin();
    if (key != nullptr) {
      const auto current = entries_.find(bytes(key, key_size_));
      if (current != entries_.end()) it = std::next(current);  // else: from the first
    }
    if (it == entries_.end()) return ENOENT;
    std::memcpy(next, it->first.data(), key_size_);
    return 0;
  }
  int remove(const void* key) override {
    if (remove_error != 0) return remove_error;
    return entries_.erase(bytes(key, key_size_)) == 1 ? 0 : ENOENT;
  }
  int update(const void* key, const void* value) override {
    if (update_error != 0) return update_error;
    entries_[bytes(key, key_size_)] = bytes(value, value_size_);
    return 0;
  }
  int lookup_batch(std::uint64_t* in_token, std::uint64_t* out_token, void* keys, void* values,
                   std::uint32_t* count) override {
    ++batch_calls;
    if (batch_error != 0) return batch_error;
    const std::uint64_t start = in_token == nullptr ? 0 : *in_token;
    std::uint32_t room = batch_limit > 0 ? std::min(batch_limit, *count) : *count;
    auto it =
        std::next(entries_.begin(),
                  static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(start, entries_.size())));
    std::uint32_t written = 0;
    for (; it != entries_.end() && written < room; ++it, ++written) {
      std::memcpy(static_cast<std::uint8_t*>(keys) + written * key_size_, it->first.data(),
                  key_size_);
      std::memcpy(static_cast<std::uint8_t*>(values) + written * value_size_, it->second.data(),
                  value_size_);
    }
    *count = written;
    *out_token = start + written;
    return it == entries_.end() ? ENOENT : 0;
  }

 private:
  static Bytes bytes(const void* data, std::size_t size) {
    const auto* first = static_cast<const std::uint8_t*>(data);
    return Bytes(first, first + size);
  }

  std::size_t key_size_;
  std::size_t value_size_;
  std::map<Bytes, Bytes> entries_;
};

}  // namespace netif_rx::test
