// A /metrics page as `top --from` reads it: the exposition parser, then the
// per-device, per-CPU reading built from its samples.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "top/exposition_parser.h"
#include "top/top_reading.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)netif_rx::parse_exposition_text(text);
  } catch (const netif_rx::ExpositionParseError&) {
  }
  try {
    (void)netif_rx::reading_from_exposition(text);
  } catch (const netif_rx::ExpositionParseError&) {
  }
  return 0;
}
