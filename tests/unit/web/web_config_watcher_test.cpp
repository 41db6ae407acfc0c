#include "web/web_config_watcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace netif_rx {
namespace {

// A web configuration whose only setting marks its version.
std::string versioned(int version) {
  return "http_server_config:\n  headers:\n    X-Frame-Options: v" + std::to_string(version) + "\n";
}

std::string version_of(const WebState& state) {
  if (!state.ok) return "broken: " + state.error;
  return state.headers.empty() ? "none" : state.headers.front().second;
}

class WebConfigWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = std::filesystem::temp_directory_path() /
                 ("netif_rx_web_watcher_test." + std::to_string(::getpid()));
    std::filesystem::create_directories(directory_);
    path_ = (directory_ / "web.yml").string();
  }
  void TearDown() override { std::filesystem::remove_all(directory_); }

  // Replaces the file by rename, as editors and secret managers do.
  void replace(const std::string& text) {
    const std::string next = path_ + ".new";
    std::ofstream(next) << text;
    std::filesystem::rename(next, path_);
  }

  std::filesystem::path directory_;
  std::string path_;
};

TEST_F(WebConfigWatcherTest, AReplacedFileIsReadAtTheNextRequest) {
  replace(versioned(1));
  WebConfigWatcher watcher(path_);
  EXPECT_EQ(version_of(*watcher.current()), "v1");
  replace(versioned(2));
  EXPECT_EQ(version_of(*watcher.current()), "v2");
}

TEST_F(WebConfigWatcherTest, ABrokenFileRefusesRequestsUntilItIsFixed) {
  replace(versioned(1));
  WebConfigWatcher watcher(path_);
  replace("http_server_config: [\n");
  EXPECT_FALSE(watcher.current()->ok);
  replace(versioned(3));
  EXPECT_EQ(version_of(*watcher.current()), "v3");
}

// A file replaced while another request was reading it is read again: the
// state never stays on what was read before the last replacement (a revoked
// password that keeps working, a certificate paired with the wrong key).
// Each round replaces the file twice in quick succession while a second
// thread keeps asking, then checks that the newest version is what counts.
TEST_F(WebConfigWatcherTest, AFileReplacedDuringAReadIsReadAgain) {
  replace(versioned(0));
  WebConfigWatcher watcher(path_);
  std::atomic<bool> stop{false};
  std::thread asker([&] {
    while (!stop.load()) (void)watcher.current();
  });
  int stale = 0;
  std::string first_stale;
  constexpr int kRounds = 300;
  for (int round = 1; round <= kRounds; ++round) {
    replace(versioned(2 * round - 1));
    replace(versioned(2 * round));
    const std::string seen = version_of(*watcher.current());
    if (seen != "v" + std::to_string(2 * round)) {
      if (stale++ == 0) first_stale = "round " + std::to_string(round) + " saw " + seen;
    }
  }
  stop = true;
  asker.join();
  EXPECT_EQ(stale, 0) << "of " << kRounds << " rounds; first: " << first_stale;
}

}  // namespace
}  // namespace netif_rx
