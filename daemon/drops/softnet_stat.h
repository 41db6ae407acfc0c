// Backlog drops per CPU from /proc/net/softnet_stat, for kernels without the
// CPU_BACKLOG drop reason (before 5.18): its second column, `dropped`, a
// 32-bit counter per CPU that wraps (in minutes at 10 Mpps of drops).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace netif_rx {

struct SoftnetRow {
  unsigned cpu = 0;
  std::uint32_t dropped = 0;
};

// The rows of the file's text: hexadecimal words, `dropped` the second; the
// CPU is the 13th word where the kernel writes it (5.10 and later), else the
// line's position. Lines that do not parse are left out; at most 8192 rows,
// lines of at most 512 bytes.
std::vector<SoftnetRow> parse_softnet_stat(std::string_view text);

// 64-bit counts from the 32-bit column: the first reading as it is, then
// each reading's difference from the last modulo 2^32 (so one wrap between
// two polls is counted right; polls come every second or so).
class SoftnetBacklogDrops {
 public:
  void update(const std::vector<SoftnetRow>& rows);
  // Index = CPU number.
  const std::vector<std::uint64_t>& per_cpu() const { return totals_; }

 private:
  std::vector<std::uint64_t> totals_;
  std::vector<std::uint32_t> last_;
  std::vector<bool> seen_;
};

}  // namespace netif_rx
