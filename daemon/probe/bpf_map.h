// A handle on one of the probe's BPF maps that carries the map's name, so
// that every error says which map and which operation failed. The kernel
// one borrows the probe's descriptor; tests use a fake (tests/unit/probe).
#pragma once

#include <cstdint>
#include <string>

namespace netif_rx {

struct MapAccessError {
  std::string map;        // e.g. "device_counters"
  std::string operation;  // e.g. "lookup_batch"
  int error = 0;          // positive errno
  std::string describe() const;
};

class BpfMap {
 public:
  explicit BpfMap(std::string name) : name_(std::move(name)) {}
  virtual ~BpfMap() = default;
  BpfMap(const BpfMap&) = delete;
  BpfMap& operator=(const BpfMap&) = delete;

  const std::string& name() const { return name_; }
  // An error of `operation` on this map.
  MapAccessError error(const char* operation, int error) const { return {name_, operation, error}; }

  // The kernel's map operations, same arguments as libbpf's bpf_map_*();
  // each returns 0 or a positive errno.
  virtual int lookup(const void* key, void* value) = 0;
  virtual int next_key(const void* key, void* next) = 0;  // key == nullptr: the first
  virtual int remove(const void* key) = 0;
  virtual int update(const void* key, const void* value) = 0;  // BPF_ANY
  // bpf_map_lookup_batch: `count` in: room for keys, out: keys written.
  // ENOENT: this was the last batch.
  virtual int lookup_batch(std::uint64_t* in_token, std::uint64_t* out_token, void* keys,
                           void* values, std::uint32_t* count) = 0;

 private:
  std::string name_;
};

// A map of the loaded probe, by its descriptor (borrowed: the probe owns it).
class KernelBpfMap final : public BpfMap {
 public:
  KernelBpfMap(std::string name, int fd) : BpfMap(std::move(name)), fd_(fd) {}

  int lookup(const void* key, void* value) override;
  int next_key(const void* key, void* next) override;
  int remove(const void* key) override;
  int update(const void* key, const void* value) override;
  int lookup_batch(std::uint64_t* in_token, std::uint64_t* out_token, void* keys, void* values,
                   std::uint32_t* count) override;

 private:
  int fd_;
};

}  // namespace netif_rx
