#include "web/web_config_watcher.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>

#include "util/log.h"

namespace netif_rx {

WebConfigWatcher::WebConfigWatcher(std::optional<std::string> path) : path_(std::move(path)) {
  if (!path_) {
    state_ = std::make_shared<WebState>();
    return;
  }
  auto state = load(watched_);
  tls_at_start_ = state->tls != nullptr;
  last_good_tls_ = state->tls;
  state_ = std::move(state);
}

WebConfigWatcher::Stamp WebConfigWatcher::stamp_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Stamp{};
  return Stamp{st.st_dev, st.st_ino, st.st_size,
               static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec};
}

bool WebConfigWatcher::changed() const {
  return std::any_of(watched_.begin(), watched_.end(),
                     [](const Watched& file) { return stamp_of(file.path) != file.stamp; });
}

std::shared_ptr<WebState> WebConfigWatcher::load(std::vector<Watched>& watched) const {
  watched = {{*path_, stamp_of(*path_)}};
  const WebConfig config = load_web_config_file(*path_);
  auto state = std::make_shared<WebState>();
  state->headers = config.headers;
  state->auth = std::make_shared<BasicAuthenticator>(config.basic_auth_users);
  if (config.tls) {
    for (const auto* file :
         {&config.tls->cert_file, &config.tls->key_file, &config.tls->client_ca_file}) {
      if (!file->empty()) watched.push_back({*file, stamp_of(*file)});
    }
    state->tls = build_tls_context(*config.tls);
    state->client_certificate_required = requires_client_certificate(config.tls->client_auth);
  }
  return state;
}

void WebConfigWatcher::reload_locked() {
  std::vector<Watched> watched;
  std::shared_ptr<WebState> next;
  try {
    next = load(watched);
    if ((next->tls != nullptr) != tls_at_start_) {
      throw ConfigError(*path_ + ": turning TLS " + (tls_at_start_ ? "off" : "on") +
                        " needs a restart; refusing requests until then");
    }
    last_good_tls_ = next->tls;
    log::info("web configuration reloaded", {{"file", *path_}});
  } catch (const std::exception& e) {
    log::error("web configuration reload failed, refusing requests with 500", {{"err", e.what()}});
    next = std::make_shared<WebState>();
    next->ok = false;
    next->error = e.what();
    // Keep watching every file named so far, so that fixing any of them retries.
    for (const auto& file : watched_) {
      const bool listed = std::any_of(watched.begin(), watched.end(),
                                      [&](const Watched& w) { return w.path == file.path; });
      if (!listed) watched.push_back({file.path, stamp_of(file.path)});
    }
  }
  watched_ = std::move(watched);
  state_ = std::move(next);
}

std::shared_ptr<const WebState> WebConfigWatcher::current() {
  std::lock_guard lock(mutex_);
  if (path_ && changed()) reload_locked();
  return state_;
}

void WebConfigWatcher::reload() {
  std::lock_guard lock(mutex_);
  if (path_) reload_locked();
}

TlsContext WebConfigWatcher::newest_tls_context() {
  current();
  std::lock_guard lock(mutex_);
  return last_good_tls_;
}

}  // namespace netif_rx
