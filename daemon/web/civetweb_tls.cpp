#include "web/civetweb_tls.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <array>
#include <climits>
#include <mutex>
#include <string>
#include <vector>

#include "util/log.h"
#include "web/tls_context.h"

namespace netif_rx {
namespace {

// civetweb opens OpenSSL as "libssl.so" and "libcrypto.so", names only
// libssl-dev ships; these answer them (see compat/), both installed with the
// exporter.
constexpr std::array<const char*, 2> kLibraries{"libnetif_rx_civetweb_crypto.so",
                                                "libnetif_rx_civetweb_tls.so"};

std::string executable_directory() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string text(path, static_cast<std::size_t>(n));
  return text.substr(0, text.rfind('/'));
}

// Loads `library` from next to the binary (the build tree), else from the
// installed location; returns what went wrong, empty when loaded.
std::string load_next_to_binary(const std::string& library) {
  const std::string dir = executable_directory();
  const std::vector<std::string> candidates{dir + "/" + library,
                                            dir + "/../lib/netif_rx_exporter/" + library};
  std::string tried;
  for (const auto& candidate : candidates) {
    if (::access(candidate.c_str(), R_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + candidate;
      continue;
    }
    // Never unloaded: civetweb keeps pointers into it.
    if (::dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) {
      log::debug("loaded a TLS library", {{"library", candidate}});
      return {};
    }
    return std::string("cannot load ") + candidate + ": " + ::dlerror();
  }
  return "TLS needs " + library + ", installed with the exporter; not found at " + tried +
         "; reinstall the exporter";
}

}  // namespace

void load_civetweb_tls_compat() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    for (const char* library : kLibraries) {
      failure = load_next_to_binary(library);
      if (!failure.empty()) return;
    }
  });
  if (!failure.empty()) throw TlsError(failure);
}

}  // namespace netif_rx
