// The message of the exception a call throws: "" when it throws none.
#pragma once

#include <string>

namespace netif_rx::test {

template <typename Error, typename Call>
std::string error_text(Call&& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace netif_rx::test
