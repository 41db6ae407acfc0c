#include "sys/stack_pages.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace netif_rx {
namespace {

// Room left below the caller's frame for this function's and madvise's own
// frames; nothing else runs on the thread meanwhile (a signal is delivered on
// return from the system call, after the pages are dropped).
constexpr std::uintptr_t kMarginBytes = 1024;

// The lowest address of the calling thread's stack (page-aligned), null when
// unknown.
char* own_stack_bottom() noexcept {
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return nullptr;
  void* bottom = nullptr;
  std::size_t size = 0;
  const int rc = ::pthread_attr_getstack(&attr, &bottom, &size);
  ::pthread_attr_destroy(&attr);
  return rc == 0 ? static_cast<char*>(bottom) : nullptr;
}

}  // namespace

void release_stack_below_caller() noexcept {
  thread_local char* const bottom = own_stack_bottom();
  static const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  if (bottom == nullptr || page == 0) return;
  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  const auto low = reinterpret_cast<std::uintptr_t>(bottom);
  if (frame < low + kMarginBytes + page) return;
  // Whole pages from the bottom up to the margin below the frame.
  const std::uintptr_t length = (frame - kMarginBytes - low) & ~(page - 1);
  (void)::madvise(bottom, length, MADV_DONTNEED);
}

}  // namespace netif_rx
