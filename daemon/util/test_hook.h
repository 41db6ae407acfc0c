// Named points where the test build can be held still, so that a test can kill the exporter inside
// a window that is otherwise microseconds wide (the chaos test, tests/integration/chaos_test.cpp).
// Only the sanitizer build the tests run defines NETIF_RX_TEST_HOOKS (CMakeLists.txt); elsewhere
// test_hook() is an empty inline function, and a release build or the package has no such points.
//
// In the test build: NETIF_RX_TEST_PAUSE=<point> makes every pass through that point log
// `test pause at <point>` and sleep NETIF_RX_TEST_PAUSE_MS (default 1000) milliseconds;
// NETIF_RX_TEST_PAUSE=* logs `test point <point>` at every point and never sleeps (which point a
// kill at a random moment followed). Both are read once, at the first point.
//
// Fail points, the same way: NETIF_RX_TEST_FAIL=<point> makes test_fail(<point>) log
// `test failure at <point>` and return true, where the code then fails as the kernel or the file
// system could make it fail there (a handover's re-pin,
// tests/integration/handover_rollback_test.cpp).
#pragma once

#ifdef NETIF_RX_TEST_HOOKS
#include <chrono>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "util/log.h"
#endif

namespace netif_rx {

#ifdef NETIF_RX_TEST_HOOKS
inline void test_hook(const char* point) {
  struct Settings {
    std::string pause;
    long milliseconds = 1000;
  };
  static const Settings settings = [] {
    Settings read;
    // Read once, before the points run on several threads; nothing sets the environment.
    if (const char* pause = std::getenv("NETIF_RX_TEST_PAUSE")) read.pause = pause;
    if (const char* ms = std::getenv("NETIF_RX_TEST_PAUSE_MS")) read.milliseconds = std::atol(ms);
    return read;
  }();
  if (settings.pause.empty()) return;
  if (settings.pause == "*") {
    log::info(std::string("test point ") + point);
    return;
  }
  if (settings.pause != std::string_view(point)) return;
  log::info(std::string("test pause at ") + point, {{"ms", settings.milliseconds}});
  std::this_thread::sleep_for(std::chrono::milliseconds(settings.milliseconds));
}

inline bool test_fail(const char* point) {
  static const std::string fail = [] {
    const char* named = std::getenv("NETIF_RX_TEST_FAIL");  // read once, as above
    return std::string(named ? named : "");
  }();
  if (fail != std::string_view(point)) return false;
  log::info(std::string("test failure at ") + point);
  return true;
}
#else
inline void test_hook(const char* /*point*/) {}
inline bool test_fail(const char* /*point*/) { return false; }
#endif

}  // namespace netif_rx
