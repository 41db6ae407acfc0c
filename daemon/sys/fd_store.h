// systemd's file-descriptor store: the service manager keeps descriptors for
// the service (FileDescriptorStoreMax= in its unit) across a restart of its
// process and passes them back at the next start (sys/passed_fds.h); a full
// stop of the unit closes them. Sent over $NOTIFY_SOCKET (sd_notify(3)).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace netif_rx {

class FdStoreError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when a service manager listens ($NOTIFY_SOCKET is set).
bool fd_store_reachable();

// How many descriptors the unit lets the store keep, when the service manager
// says so ($FDSTORE, systemd 254 and later); nullopt when it does not.
std::optional<long> fd_store_max();

// Stores `fd` under `name` (FDSTORE=1, FDNAME=, and FDPOLL=0: systemd must not
// poll it, as a BPF object's descriptor reports errors to poll(2)). Throws
// FdStoreError when the message cannot be sent.
void store_fd(const std::string& name, int fd);

// Closes every stored descriptor named `name` (FDSTOREREMOVE=1); failures
// are logged.
void remove_stored_fds(const std::string& name);

}  // namespace netif_rx
