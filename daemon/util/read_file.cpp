#include "util/read_file.h"

#include <algorithm>
#include <array>
#include <fstream>

namespace netif_rx {

std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  // In pieces: files of /proc and /sys report no size, and a large bound
  // (a few MiB) must not cost its size in memory for a small file.
  std::string text;
  std::array<char, 16384> piece{};
  while (text.size() < max_bytes) {
    const std::size_t want = std::min(piece.size(), max_bytes - text.size());
    in.read(piece.data(), static_cast<std::streamsize>(want));
    if (in.bad()) return std::nullopt;
    const auto got = static_cast<std::size_t>(in.gcount());
    text.append(piece.data(), got);
    if (got < want) break;
  }
  return text;
}

}  // namespace netif_rx
