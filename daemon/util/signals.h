// Signals a command waits for (sigwait, sigtimedwait) instead of handling.
#pragma once

#include <signal.h>

#include <initializer_list>

namespace netif_rx {

// Blocks `signals` in the calling thread, before any thread starts, so that
// every thread inherits the mask and only the waiter receives them; ignores
// SIGPIPE (a client that hangs up). Returns the set to wait for.
inline sigset_t block_signals_for_waiting(std::initializer_list<int> signals) {
  sigset_t set;
  sigemptyset(&set);
  for (const int signal_number : signals) sigaddset(&set, signal_number);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
  return set;
}

}  // namespace netif_rx
