#include "web/render_thread.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>
#include <vector>

namespace netif_rx {
namespace {

TEST(RenderThread, RunsEachJobOnItsOwnThreadAndReturnsItsText) {
  RenderThread renderer;
  const auto caller = std::this_thread::get_id();
  std::thread::id first;
  EXPECT_EQ(renderer.run([&] {
    first = std::this_thread::get_id();
    return std::string("one");
  }),
            "one");
  std::thread::id second;
  EXPECT_EQ(renderer.run([&] {
    second = std::this_thread::get_id();
    return std::string("two");
  }),
            "two");
  EXPECT_NE(first, caller);
  EXPECT_EQ(first, second);
}

TEST(RenderThread, RethrowsWhatTheJobThrewAndKeepsServing) {
  RenderThread renderer;
  EXPECT_THROW(renderer.run([]() -> std::string { throw std::runtime_error("broken"); }),
               std::runtime_error);
  EXPECT_EQ(renderer.run([] { return std::string("after"); }), "after");
}

TEST(RenderThread, ServesManyCallersAtOnce) {
  RenderThread renderer;
  std::vector<std::thread> callers;
  std::vector<std::string> texts(16);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    callers.emplace_back([&, i] {
      for (int n = 0; n < 50; ++n) texts[i] = renderer.run([i] { return std::to_string(i); });
    });
  }
  for (auto& caller : callers) caller.join();
  for (std::size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(texts[i], std::to_string(i));
}

}  // namespace
}  // namespace netif_rx
