#include "sys/passed_fds.h"

#include <systemd/sd-daemon.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>

#include "util/errno_text.h"

namespace netif_rx {
namespace {

struct NamesFree {
  void operator()(char** names) const {
    for (char** name = names; name != nullptr && *name != nullptr; ++name) std::free(*name);
    std::free(static_cast<void*>(names));
  }
};

std::vector<PassedFd> read_passed_fds() {
  char** raw_names = nullptr;
  const int count = sd_listen_fds_with_names(1, &raw_names);
  std::unique_ptr<char*, NamesFree> names(raw_names);
  if (count < 0) {
    throw PassedFdsError(std::string("cannot read the descriptors systemd passed ($LISTEN_FDS): ") +
                         errno_text(-count));
  }
  std::vector<PassedFd> fds;
  fds.reserve(static_cast<std::size_t>(count));  // each one open: sd_listen_fds checked
  for (int i = 0; i < count; ++i) fds.push_back({"", UniqueFd(SD_LISTEN_FDS_START + i)});
  if (count > kMaxPassedFds) {
    throw PassedFdsError("systemd passed " + std::to_string(count) + " descriptors; at most " +
                         std::to_string(kMaxPassedFds) + " are accepted");
  }
  for (int i = 0; i < count && names && names.get()[i] != nullptr; ++i)
    fds[static_cast<std::size_t>(i)].name = names.get()[i];
  return fds;
}

}  // namespace

std::vector<PassedFd> take_passed_fds(const std::function<bool(const std::string&)>& wanted) {
  static std::mutex mutex;
  static std::optional<std::vector<PassedFd>> passed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!passed) passed = read_passed_fds();
  std::vector<PassedFd> taken;
  for (auto& passed_fd : *passed) {
    if (passed_fd.fd.valid() && wanted(passed_fd.name))
      taken.push_back({passed_fd.name, std::move(passed_fd.fd)});
  }
  return taken;
}

}  // namespace netif_rx
