#include "owners/netns_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <string>
#include <string_view>

#include "owners/nsfs_mounts.h"
#include "util/unique_fd.h"

namespace netif_rx {
namespace {

// NS_GET_ID of <linux/nsfs.h> (Linux 6.18), which bookworm's 6.1 headers lack:
// _IOR(NSIO = 0xb7, 13, __u64). Older kernels answer ENOTTY.
constexpr unsigned long kNsGetId = _IOR(0xb7, 13, std::uint64_t);

// Whether the kernel answers NS_GET_ID, learnt from the first namespace file
// asked: where it does not, a process's link is read (one system call), not
// opened (five), as a scan of every process does it for each.
enum class NsGetId { unknown, answered, missing };
std::atomic<NsGetId>& ns_get_id() {
  static std::atomic<NsGetId> state{NsGetId::unknown};
  return state;
}

// `path` opened, when it is a namespace file. Never blocks (O_NONBLOCK: a
// FIFO swapped in opens at once and is refused).
NetnsFileIdentity identify(const UniqueFd& fd) {
  struct statfs fs {};
  struct stat st {};
  if (!fd.valid() || ::fstatfs(fd.get(), &fs) != 0 || fs.f_type != NSFS_MAGIC ||
      ::fstat(fd.get(), &st) != 0) {
    return {};
  }
  NetnsFileIdentity identity;
  identity.inum = static_cast<std::uint32_t>(st.st_ino);
  std::uint64_t id = 0;
  if (::ioctl(fd.get(), kNsGetId, &id) == 0) {
    identity.id = id;
    ns_get_id().store(NsGetId::answered, std::memory_order_relaxed);
  } else if (ns_get_id().load(std::memory_order_relaxed) != NsGetId::answered) {
    // ENOTTY: no NS_GET_ID; anything else (a security module refusing it)
    // gives no id either: links are read, not opened, from now on.
    ns_get_id().store(NsGetId::missing, std::memory_order_relaxed);
  }
  return identity;
}

NetnsFileIdentity open_and_identify(const std::string& path) {
  return identify(UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)));
}

}  // namespace

NetnsFileIdentity open_netns_file(const std::string& path) {
  // A path from a bundle is outside input: opening a device there would run
  // its driver's open. O_PATH opens nothing; the file it names is checked to
  // be nsfs on that descriptor, then opened for the ioctl through it, so a
  // component swapped after the check changes nothing.
  const UniqueFd handle(::open(path.c_str(), O_PATH | O_CLOEXEC));
  struct statfs fs {};
  if (!handle.valid() || ::fstatfs(handle.get(), &fs) != 0 || fs.f_type != NSFS_MAGIC) return {};
  const std::string reopen = "/proc/thread-self/fd/" + std::to_string(handle.get());
  return open_and_identify(reopen);
}

NetnsFileIdentity netns_link_identity(const std::string& path) {
  if (ns_get_id().load(std::memory_order_relaxed) != NsGetId::missing) {
    if (NetnsFileIdentity opened = open_and_identify(path); opened.inum != 0) return opened;
  }
  std::array<char, 64> link{};
  const ssize_t length = ::readlink(path.c_str(), link.data(), link.size());
  if (length <= 0) return {};
  return {parse_net_link(std::string_view(link.data(), static_cast<std::size_t>(length))), {}};
}

}  // namespace netif_rx
