#include "devices/link_watcher.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "util/errno_text.h"

namespace netif_rx {
namespace {

constexpr std::size_t kDatagramBuffer = 64 << 10;
constexpr int kDumpAttempts = 5;
constexpr std::chrono::milliseconds kResyncRetry{500};

UniqueFd netlink_socket(int extra_flags) {
  return UniqueFd(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | extra_flags, NETLINK_ROUTE));
}

// Receives one datagram; returns its length, or -errno. A truncated datagram
// is reported as -EMSGSIZE.
ssize_t receive(int fd, std::vector<std::uint8_t>& buffer, int flags) {
  iovec io{buffer.data(), buffer.size()};
  sockaddr_nl from{};
  msghdr header{};
  header.msg_name = &from;
  header.msg_namelen = sizeof from;
  header.msg_iov = &io;
  header.msg_iovlen = 1;
  const ssize_t n = ::recvmsg(fd, &header, flags);
  if (n < 0) return -errno;
  if (header.msg_flags & MSG_TRUNC) return -EMSGSIZE;
  if (from.nl_pid != 0) return 0;  // not from the kernel: ignore
  return n;
}

}  // namespace

LinkDump dump_links() {
  LinkDump dump;
  std::vector<std::uint8_t> buffer(kDatagramBuffer);
  for (int attempt = 0; attempt < kDumpAttempts; ++attempt) {
    dump.links.clear();
    UniqueFd fd = netlink_socket(0);
    if (!fd.valid()) {
      dump.error = errno;
      return dump;
    }
    timeval timeout{5, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    const auto request = link_dump_request(static_cast<std::uint32_t>(attempt + 1));
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(fd.get(), request.data(), request.size(), 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) < 0) {
      dump.error = errno;
      return dump;
    }
    bool done = false;
    bool interrupted = false;
    while (!done) {
      const ssize_t n = receive(fd.get(), buffer, 0);
      if (n < 0) {
        dump.error = static_cast<int>(-n);
        return dump;
      }
      const auto parsed = parse_link_messages(
          std::span<const std::uint8_t>(buffer.data(), static_cast<std::size_t>(n)));
      if (parsed.malformed) {
        dump.error = EBADMSG;
        return dump;
      }
      for (const auto& message : parsed.messages) {
        interrupted = interrupted || message.dump_interrupted;
        if (message.kind == LinkMessage::Kind::done) done = true;
        if (message.kind == LinkMessage::Kind::error) {
          dump.error = message.error;
          return dump;
        }
        if (message.kind == LinkMessage::Kind::link) dump.links.push_back(message);
      }
    }
    if (!interrupted) {
      dump.error = 0;
      return dump;
    }
  }
  dump.error = 0;  // links changed during every attempt: the last one's links
  dump.interrupted = true;
  return dump;
}

LinkWatcher::LinkWatcher(LinkWatcherOptions options) : options_(std::move(options)) {
  // Subscribe first, then dump: an event that races the dump is applied
  // after it, in order, so the view ends right.
  events_ = netlink_socket(SOCK_NONBLOCK);
  if (!events_.valid()) {
    throw LinkWatcherError(
        "cannot open a netlink socket to follow network devices: " + errno_text(errno) +
        "; the exporter needs AF_NETLINK (systemd: RestrictAddressFamilies=)");
  }
  // FORCE goes past net.core.rmem_max with CAP_NET_ADMIN; without it, the
  // plain option gives what the sysctl allows.
  const int size = options_.receive_buffer;
  if (::setsockopt(events_.get(), SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0) {
    ::setsockopt(events_.get(), SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = RTMGRP_LINK;
  if (::bind(events_.get(), reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    throw LinkWatcherError("cannot subscribe to network device events (RTNLGRP_LINK): " +
                           errno_text(errno));
  }
  stop_ = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_.valid()) throw LinkWatcherError("eventfd failed: " + errno_text(errno));

  const LinkDump dump = dump_links();
  if (dump.error != 0) {
    throw LinkWatcherError("cannot list network devices (RTM_GETLINK): " + errno_text(dump.error));
  }
  {
    std::lock_guard lock(mutex_);
    apply_dump(dump);
  }
  // An interrupted first dump: the next one soon (else after resync_interval).
  next_resync_ = std::chrono::steady_clock::now() +
                 (dump.interrupted ? kResyncRetry : options_.resync_interval);
  thread_ = std::thread([this] { run(); });
}

LinkWatcher::~LinkWatcher() {
  const std::uint64_t one = 1;
  (void)!::write(stop_.get(), &one, sizeof one);
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<const LinkView> LinkWatcher::view() const {
  std::lock_guard lock(mutex_);
  if (!published_) published_ = std::make_shared<const LinkView>(table_.view());
  return published_;
}

std::uint64_t LinkWatcher::resyncs() const {
  std::lock_guard lock(mutex_);
  return resyncs_;
}

std::uint64_t LinkWatcher::interrupted_dumps() const {
  std::lock_guard lock(mutex_);
  return interrupted_dumps_;
}

void LinkWatcher::apply_dump(const LinkDump& dump) {
  if (dump.interrupted) {
    // Every link in it is live, but one that moved in the kernel's list may
    // be missing: removing what it lacks could take a live device for gone
    // (and its counts for a removed device's).
    table_.merge(dump.links);
    ++interrupted_dumps_;
  } else {
    apply_removed(table_.replace(dump.links));
    ++resyncs_;
  }
  published_.reset();
}

void LinkWatcher::apply_removed(const std::vector<std::uint32_t>& gone) {
  if (!options_.on_removed) return;
  for (std::uint32_t ifindex : gone) options_.on_removed(ifindex);
}

bool LinkWatcher::resync() {
  const LinkDump dump = dump_links();
  if (dump.error != 0) {
    if (options_.on_error) {
      options_.on_error("listing network devices (RTM_GETLINK) failed: " + errno_text(dump.error));
    }
    return false;
  }
  std::lock_guard lock(mutex_);
  apply_dump(dump);
  return !dump.interrupted;
}

void LinkWatcher::drain_events() {
  buffer_.resize(kDatagramBuffer);
  while (true) {
    const ssize_t n = receive(events_.get(), buffer_, MSG_DONTWAIT);
    if (n == -EAGAIN || n == -EWOULDBLOCK) return;
    if (n == -ENOBUFS || n == -EMSGSIZE) {
      // The kernel dropped events (or one did not fit): the view may be
      // wrong; a full dump puts it right.
      if (options_.on_error) {
        options_.on_error("network device events were lost (" + errno_text(static_cast<int>(-n)) +
                          "); listing every device again");
      }
      next_resync_ = std::chrono::steady_clock::now();  // once the queue is read
      continue;
    }
    if (n < 0) {
      if (n == -EINTR) continue;
      if (options_.on_error) {
        options_.on_error("reading network device events failed: " +
                          errno_text(static_cast<int>(-n)));
      }
      return;
    }
    const auto parsed = parse_link_messages(
        std::span<const std::uint8_t>(buffer_.data(), static_cast<std::size_t>(n)));
    std::lock_guard lock(mutex_);
    for (const auto& message : parsed.messages) apply_removed(table_.apply(message));
    if (!parsed.messages.empty()) published_.reset();
    if (parsed.malformed && options_.on_error) {
      options_.on_error("a malformed network device event was ignored");
    }
  }
}

void LinkWatcher::run() {
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_resync_) {
      // A failed or interrupted dump (links changed during every attempt, in
      // a burst) is retried soon: the view stays suspect until one succeeds.
      next_resync_ = now + (resync() ? options_.resync_interval : kResyncRetry);
    }
    const auto wait =
        std::chrono::duration_cast<std::chrono::milliseconds>(next_resync_ - now).count();
    std::array<pollfd, 2> fds{{{events_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}}};
    const int ready =
        ::poll(fds.data(), fds.size(), static_cast<int>(std::max<long long>(wait, 1)));
    if (ready < 0 && errno != EINTR) {
      if (options_.on_error) options_.on_error("poll failed: " + errno_text(errno));
      return;
    }
    if (fds[1].revents) return;
    if (fds[0].revents & (POLLIN | POLLERR)) drain_events();
  }
}

}  // namespace netif_rx
