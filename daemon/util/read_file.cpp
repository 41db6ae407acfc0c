#include "util/read_file.h"

#include <fstream>

namespace netif_rx {

std::optional<std::string> read_file(const std::string& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(max_bytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(max_bytes));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

}  // namespace netif_rx
