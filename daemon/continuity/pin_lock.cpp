#include "continuity/pin_lock.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "continuity/probe_error.h"
#include "util/errno_text.h"
#include "util/read_file.h"

namespace netif_rx {

std::optional<long> flock_holder(std::string_view proc_locks, dev_t device, ino_t inode) {
  std::istringstream lines{std::string(proc_locks)};
  std::string line;
  while (std::getline(lines, line)) {
    // "1: FLOCK  ADVISORY  WRITE 4242 00:27:6279390 0 EOF"; blocked waiters
    // have "->" after the number.
    char kind[16] = {};
    long pid = 0;
    unsigned major_number = 0;
    unsigned minor_number = 0;
    std::uintmax_t inode_number = 0;
    if (line.find("->") != std::string::npos) continue;
    if (std::sscanf(line.c_str(), "%*[^:]: %15s %*s %*s %ld %x:%x:%" SCNuMAX, kind, &pid,
                    &major_number, &minor_number, &inode_number) != 5) {
      continue;
    }
    if (std::string_view(kind) != "FLOCK" || pid <= 0) continue;
    if (major_number == major(device) && minor_number == minor(device) && inode_number == inode)
      return pid;
  }
  return std::nullopt;
}

namespace {

constexpr const char* kPinPathHint =
    "; pass an existing directory on a BPF filesystem to --bpf.pin-path";

UniqueFd open_pin_directory(const std::string& directory) {
  UniqueFd fd(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid() && errno != ENOENT) {
    throw ProbeError("cannot open the pin directory " + directory + ": " + errno_text(errno) +
                     kPinPathHint);
  }
  return fd;
}

void check_bpffs(int fd, const std::string& directory) {
  struct statfs filesystem {};
  if (::fstatfs(fd, &filesystem) != 0 ||
      static_cast<unsigned long>(filesystem.f_type) != BPF_FS_MAGIC) {
    throw ProbeError("the pin directory " + directory +
                     " is not on a BPF filesystem; mount one (mount -t bpf bpf /sys/fs/bpf) or "
                     "choose a directory under one for --bpf.pin-path");
  }
}

// The exclusive lock on `fd`; false when another process holds it (`holder`:
// its pid, when /proc/locks names it). Throws ProbeError on other errors.
bool try_lock(int fd, const std::string& directory, std::optional<long>& holder) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return true;
  const int err = errno;
  if (err != EWOULDBLOCK) {
    throw ProbeError("cannot lock the pin directory " + directory + ": " + errno_text(err));
  }
  struct stat status {};
  if (::fstat(fd, &status) == 0) {
    const auto locks = read_file("/proc/locks");
    if (locks) holder = flock_holder(*locks, status.st_dev, status.st_ino);
  }
  return false;
}

std::string pid_of(const std::optional<long>& holder) {
  return holder ? " (pid " + std::to_string(*holder) + ")" : std::string();
}

}  // namespace

PinLock PinLock::acquire(const std::string& directory) {
  if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
    throw ProbeError("cannot create the pin directory " + directory + ": " + errno_text(errno) +
                     kPinPathHint);
  }
  UniqueFd fd = open_pin_directory(directory);
  if (!fd.valid()) {
    throw ProbeError("cannot open the pin directory " + directory + ": " + errno_text(errno) +
                     kPinPathHint);
  }
  check_bpffs(fd.get(), directory);
  std::optional<long> holder;
  if (!try_lock(fd.get(), directory, holder)) {
    throw ProbeError("another exporter" + pid_of(holder) + " owns the probe pinned at " +
                     directory + ": stop it, or give this one another --bpf.pin-path");
  }
  return PinLock(std::move(fd));
}

std::optional<PinLock> PinLock::acquire_existing(const std::string& directory) {
  UniqueFd fd = open_pin_directory(directory);
  if (!fd.valid()) return std::nullopt;
  check_bpffs(fd.get(), directory);
  std::optional<long> holder;
  if (!try_lock(fd.get(), directory, holder)) {
    throw ProbeError("an exporter" + pid_of(holder) + " runs on the probe pinned at " + directory +
                     ": stop it first, then unpin");
  }
  return PinLock(std::move(fd));
}

}  // namespace netif_rx
