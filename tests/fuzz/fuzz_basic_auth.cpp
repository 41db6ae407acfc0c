// The value of a request's Authorization header.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "web/basic_auth.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view header(reinterpret_cast<const char*>(data), size);
  const auto credentials = netif_rx::parse_basic_authorization(header);
  if (credentials && credentials->user.size() + credentials->password.size() > size) {
    __builtin_trap();
  }
  return 0;
}
