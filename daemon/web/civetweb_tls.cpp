#include "web/civetweb_tls.h"

#include <dlfcn.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <climits>
#include <mutex>
#include <string>
#include <vector>

#include "util/log.h"
#include "web/tls_context.h"

namespace netif_rx {
namespace {

constexpr const char* kLibrary = "libnetif_rx_civetweb_tls.so";

std::string executable_directory() {
  char path[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return ".";
  std::string text(path, static_cast<std::size_t>(n));
  return text.substr(0, text.rfind('/'));
}

}  // namespace

void load_civetweb_tls_compat() {
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    // Next to the binary (the build tree), then the installed location.
    const std::string dir = executable_directory();
    const std::vector<std::string> candidates{dir + "/" + kLibrary,
                                              dir + "/../lib/netif_rx_exporter/" + kLibrary};
    std::string tried;
    for (const auto& candidate : candidates) {
      if (::access(candidate.c_str(), R_OK) != 0) {
        tried += (tried.empty() ? "" : ", ") + candidate;
        continue;
      }
      // Never unloaded: civetweb keeps pointers into it.
      if (::dlopen(candidate.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr) {
        log::debug("loaded a TLS library", {{"library", candidate}});
        return;
      }
      failure = std::string("cannot load ") + candidate + ": " + ::dlerror();
      return;
    }
    failure = std::string("TLS needs ") + kLibrary +
              ", installed with the exporter; not found at " + tried + "; reinstall the exporter";
  });
  if (!failure.empty()) throw TlsError(failure);
}

}  // namespace netif_rx
