#include "sys/stack_pages.h"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace netif_rx {
namespace {

// How many of the pages in [low, high) are resident.
std::size_t resident_pages(std::uintptr_t low, std::uintptr_t high) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  low &= ~(page - 1);
  std::vector<unsigned char> flags((high - low + page - 1) / page);
  if (::mincore(reinterpret_cast<void*>(low), high - low, flags.data()) != 0) return 0;
  std::size_t resident = 0;
  for (const unsigned char f : flags) resident += f & 1U;
  return resident;
}

// Writes 64 KiB of stack below the caller's frame and returns the lowest address written.
__attribute__((noinline)) std::uintptr_t touch_deep_stack() {
  volatile char deep[64 * 1024];
  std::memset(const_cast<char*>(deep), 1, sizeof deep);
  return reinterpret_cast<std::uintptr_t>(&deep[0]);
}

TEST(StackPages, DropsThePagesBelowTheCallerAndKeepsItsOwn) {
  std::size_t before = 0;
  std::size_t after = 0;
  int kept = 0;
  // A thread of its own, with a stack of a known size and nothing else on it.
  pthread_attr_t attr;
  ASSERT_EQ(::pthread_attr_init(&attr), 0);
  ASSERT_EQ(::pthread_attr_setstacksize(&attr, 1024 * 1024), 0);
  struct Run {
    std::size_t* before;
    std::size_t* after;
    int* kept;
  } run{&before, &after, &kept};
  pthread_t thread;
  ASSERT_EQ(::pthread_create(
                &thread, &attr,
                [](void* arg) -> void* {
                  auto* r = static_cast<Run*>(arg);
                  volatile int mine = 42;
                  const auto frame = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
                  const std::uintptr_t low = touch_deep_stack();
                  // The range well below this frame that the deep call wrote.
                  const std::uintptr_t high = frame - 32 * 1024;
                  *r->before = resident_pages(low, high);
                  release_stack_below_caller();
                  *r->after = resident_pages(low, high);
                  *r->kept = mine;
                  return nullptr;
                },
                &run),
            0);
  ASSERT_EQ(::pthread_join(thread, nullptr), 0);
  ::pthread_attr_destroy(&attr);
  EXPECT_GE(before, 4U);
  EXPECT_EQ(after, 0U);
  EXPECT_EQ(kept, 42);
}

TEST(StackPages, IsHarmlessOnTheMainThreadAndRepeated) {
  // The main thread's stack too has bounds; its deep pages go, its frames stay.
  touch_deep_stack();
  release_stack_below_caller();
  release_stack_below_caller();
  std::vector<int> values{1, 2, 3};
  EXPECT_EQ(values[2], 3);
}

}  // namespace
}  // namespace netif_rx
