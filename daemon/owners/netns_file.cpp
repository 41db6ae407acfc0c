#include "owners/netns_file.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <array>
#include <string_view>

#include "owners/nsfs_mounts.h"
#include "util/unique_fd.h"

namespace netif_rx {
namespace {

// NS_GET_ID of <linux/nsfs.h> (Linux 6.18), which bookworm's 6.1 headers lack:
// _IOR(NSIO = 0xb7, 13, __u64). Older kernels answer ENOTTY.
constexpr unsigned long kNsGetId = _IOR(0xb7, 13, std::uint64_t);

bool on_nsfs(int fd) {
  struct statfs fs {};
  return ::fstatfs(fd, &fs) == 0 && fs.f_type == NSFS_MAGIC;
}

}  // namespace

NetnsFileIdentity open_netns_file(const std::string& path) {
  // statfs first: a path from a bundle is outside input, and opening a FIFO
  // there would block; O_NONBLOCK covers a swap between the two calls.
  struct statfs fs {};
  if (::statfs(path.c_str(), &fs) != 0 || fs.f_type != NSFS_MAGIC) return {};
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  struct stat st {};
  if (!fd.valid() || !on_nsfs(fd.get()) || ::fstat(fd.get(), &st) != 0) return {};
  NetnsFileIdentity identity;
  identity.inum = static_cast<std::uint32_t>(st.st_ino);
  std::uint64_t id = 0;
  if (::ioctl(fd.get(), kNsGetId, &id) == 0) identity.id = id;
  return identity;
}

NetnsFileIdentity netns_link_identity(const std::string& path) {
  if (NetnsFileIdentity opened = open_netns_file(path); opened.inum != 0) return opened;
  std::array<char, 64> link{};
  const ssize_t length = ::readlink(path.c_str(), link.data(), link.size());
  if (length <= 0) return {};
  return {parse_net_link(std::string_view(link.data(), static_cast<std::size_t>(length))), {}};
}

}  // namespace netif_rx
