// Follows the links of the exporter's own network namespace: rtnetlink
// events (RTM_NEWLINK, RTM_DELLINK on RTNLGRP_LINK) on a thread of its own,
// with a full dump (RTM_GETLINK) at start, every `resync_interval`, and at
// once when the kernel dropped messages (ENOBUFS). Thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "devices/link_messages.h"
#include "devices/link_table.h"
#include "devices/link_watcher_error.h"
#include "util/unique_fd.h"

namespace netif_rx {

struct LinkWatcherOptions {
  std::chrono::milliseconds resync_interval{60000};
  // Receive buffer of the event socket, in bytes: room for bursts of events
  // (pods starting by the hundred). Tests make it tiny to provoke ENOBUFS.
  int receive_buffer = 4 << 20;
  // Called, under the watcher's lock, for each device that is gone (a real
  // deletion or a move to another namespace, never an event about a live
  // device), after it left the view: queues it for the poller, the one thread
  // that changes the maps (also where the kernel refuses bpf(2) to this
  // thread), which deletes its map entries after its first view of the links
  // and before its read. A poller whose view no longer has the device
  // therefore reads no entry of it; one that still sees the device in a view
  // taken after this cannot have read a later device's counts under its name.
  std::function<void(std::uint32_t ifindex)> on_removed;
  // Called for a failure the watcher recovers from (reason, message).
  std::function<void(const std::string& message)> on_error;
};

// One RTM_GETLINK dump of this namespace's links; the errno when it failed.
// `interrupted`: links changed during every attempt (NLM_F_DUMP_INTR, as
// namespaces and pods are made by the hundred): `links` holds the last
// attempt's, every one a live link, but a link that moved in the kernel's
// list meanwhile may be missing.
struct LinkDump {
  std::vector<LinkMessage> links;
  int error = 0;
  bool interrupted = false;
};
LinkDump dump_links();

class LinkWatcher {
 public:
  // Subscribes, dumps once, starts the thread. Throws LinkWatcherError.
  explicit LinkWatcher(LinkWatcherOptions options);
  ~LinkWatcher();
  LinkWatcher(const LinkWatcher&) = delete;
  LinkWatcher& operator=(const LinkWatcher&) = delete;

  // The current view, immutable: the same one for every caller until a
  // link changes (a poll of many devices copies nothing).
  std::shared_ptr<const LinkView> view() const;
  // Full dumps done so far (the first included).
  std::uint64_t resyncs() const;
  // Dumps interrupted at every attempt: their links were added to the view,
  // none removed from it, and a full dump followed soon.
  std::uint64_t interrupted_dumps() const;

 private:
  void run();
  // False when the dump failed (on_error) or was interrupted at every
  // attempt (its links merged): either way, another is due soon.
  bool resync();
  // Applies a dump to the table: a complete one replaces it, an interrupted
  // one is merged. Under mutex_.
  void apply_dump(const LinkDump& dump);
  void drain_events();
  void apply_removed(const std::vector<std::uint32_t>& gone);

  LinkWatcherOptions options_;
  UniqueFd events_;
  UniqueFd stop_;                     // eventfd
  std::vector<std::uint8_t> buffer_;  // one datagram of events, reused
  // Watcher thread only: when the next full dump is due (now, after ENOBUFS).
  std::chrono::steady_clock::time_point next_resync_{};
  mutable std::mutex mutex_;
  LinkTable table_{sysfs_has_parent_device};
  mutable std::shared_ptr<const LinkView> published_;  // null: table_ changed since
  std::uint64_t resyncs_ = 0;
  std::uint64_t interrupted_dumps_ = 0;
  std::thread thread_;
};

}  // namespace netif_rx
