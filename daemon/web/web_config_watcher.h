// The live --web.config.file: loaded at startup (a bad file is fatal), then
// re-read whenever it or a file it names (certificate, key, client CA)
// changes, checked on each request and handshake. A file that breaks later
// makes every request fail with 500 until it is fixed: never served without
// the authentication or TLS it asks for.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "web/basic_auth.h"
#include "web/tls_context.h"
#include "web/web_config.h"

namespace netif_rx {

struct WebState {
  bool ok = true;     // false: refuse every request with 500
  std::string error;  // why, when !ok
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<const BasicAuthenticator> auth;
  TlsContext tls;  // null: plain HTTP
  // Paths other than the probes refuse a connection without a client certificate.
  bool client_certificate_required = false;
};

class WebConfigWatcher {
 public:
  // No path: plain HTTP, no authentication, never changes. Throws
  // ConfigError or TlsError when the file can't be used.
  explicit WebConfigWatcher(std::optional<std::string> path);

  bool tls() const { return tls_at_start_; }
  // The state for one request, re-reading the files if any changed.
  std::shared_ptr<const WebState> current();
  // Re-reads now (SIGHUP).
  void reload();
  // The newest usable TLS context (the last good one while the file is broken).
  TlsContext newest_tls_context();

 private:
  struct Stamp {
    dev_t dev = 0;
    ino_t ino = 0;
    off_t size = -1;
    long long mtime_ns = 0;
    bool operator==(const Stamp&) const = default;
  };
  // A file read for the state, with its stamp taken just before it was read:
  // a file replaced while (or after) it was read differs from its stamp, so
  // the next request reloads rather than keeping what was torn or stale.
  struct Watched {
    std::string path;
    Stamp stamp;
  };
  static Stamp stamp_of(const std::string& path);
  bool changed() const;
  // Loads the file and those it names; throws on any problem, with `watched`
  // holding every file stamped so far.
  std::shared_ptr<WebState> load(std::vector<Watched>& watched) const;
  void reload_locked();

  const std::optional<std::string> path_;
  bool tls_at_start_ = false;
  std::mutex mutex_;
  std::vector<Watched> watched_;  // the web config file and the TLS files it names
  std::shared_ptr<const WebState> state_;
  TlsContext last_good_tls_;
};

}  // namespace netif_rx
