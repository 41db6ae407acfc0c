#include "app/notify.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "util/unique_fd.h"

namespace netif_rx {
namespace {

// Sets (or unsets, with nullopt) one variable for the test's scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(Notify, FormatsOneFieldPerLine) {
  EXPECT_EQ(format_notify_message({{"READY", "1"}, {"STATUS", "serving"}}),
            "READY=1\nSTATUS=serving\n");
  EXPECT_EQ(format_notify_message({{"STATUS", "two\nlines"}}), "STATUS=two lines\n");
  EXPECT_EQ(format_notify_message({}), "");
}

std::optional<std::chrono::microseconds> watchdog_with(std::optional<std::string> usec,
                                                       std::optional<std::string> pid) {
  const ScopedEnv usec_env("WATCHDOG_USEC", std::move(usec));
  const ScopedEnv pid_env("WATCHDOG_PID", std::move(pid));
  return Notifier::from_environment().watchdog();
}

TEST(Notify, WatchdogIntervalOnlyForThisProcess) {
  using std::chrono::microseconds;
  const std::string self = std::to_string(::getpid());
  EXPECT_EQ(watchdog_with("30000000", std::nullopt), microseconds(30000000));
  EXPECT_EQ(watchdog_with("30000000", self), microseconds(30000000));
  EXPECT_FALSE(watchdog_with("30000000", std::to_string(::getpid() + 1)));
  EXPECT_FALSE(watchdog_with(std::nullopt, std::nullopt));
  EXPECT_FALSE(watchdog_with("0", std::nullopt));
  EXPECT_FALSE(watchdog_with("abc", std::nullopt));
  // The variables stay for whoever reads them later.
  const ScopedEnv usec_env("WATCHDOG_USEC", "5000000");
  (void)Notifier::from_environment();
  EXPECT_STREQ(std::getenv("WATCHDOG_USEC"), "5000000");
}

TEST(Notify, SilentWithoutASocket) {
  const ScopedEnv socket_env("NOTIFY_SOCKET", std::nullopt);
  const Notifier notifier = Notifier::from_environment();
  EXPECT_FALSE(notifier.enabled());
  notifier.ready("serving");  // no crash, nothing to send to
  EXPECT_FALSE(Notifier().enabled());
}

// Routes the default logger, at debug level, into a string for the test's
// scope.
class ScopedLogCapture {
 public:
  ScopedLogCapture()
      : previous_(spdlog::default_logger()),
        logger_(std::make_shared<spdlog::logger>(
            "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out_))) {
    logger_->set_level(spdlog::level::debug);
    spdlog::set_default_logger(logger_);
  }
  ~ScopedLogCapture() { spdlog::set_default_logger(previous_); }
  ScopedLogCapture(const ScopedLogCapture&) = delete;
  ScopedLogCapture& operator=(const ScopedLogCapture&) = delete;

  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> previous_;
  std::shared_ptr<spdlog::logger> logger_;
};

TEST(Notify, AnInvalidSocketIsNotFatal) {
  const ScopedEnv socket_env("NOTIFY_SOCKET", "relative/path");
  const Notifier notifier = Notifier::from_environment();
  ASSERT_TRUE(notifier.enabled());  // it does try the socket
  const ScopedLogCapture log;
  // sd_notify refuses the path: logged at debug level, not thrown, and the
  // next message is tried again.
  EXPECT_NO_THROW(notifier.ready("serving"));
  EXPECT_NO_THROW(notifier.watchdog_ping());
  const std::string text = log.text();
  const std::string refusal = "notifying the service manager failed";
  const auto first = text.find(refusal);
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_NE(text.find(refusal, first + refusal.size()), std::string::npos) << text;
}

TEST(Notify, SendsDatagramsToTheSocket) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("notify_test." + std::to_string(getpid())))
          .string();
  UniqueFd server(::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  ASSERT_TRUE(server.valid());
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  path.copy(address.sun_path, sizeof address.sun_path - 1);
  ::unlink(path.c_str());
  ASSERT_EQ(::bind(server.get(), reinterpret_cast<sockaddr*>(&address), sizeof address), 0);

  const ScopedEnv socket_env("NOTIFY_SOCKET", path);
  const Notifier notifier = Notifier::from_environment();
  ASSERT_TRUE(notifier.enabled());
  notifier.reloading("reloading");
  char buffer[512] = {};
  const ssize_t n = ::recv(server.get(), buffer, sizeof buffer - 1, 0);
  ::unlink(path.c_str());
  ASSERT_GT(n, 0);
  const std::string message(buffer, static_cast<std::size_t>(n));
  EXPECT_EQ(message.rfind("RELOADING=1\nMONOTONIC_USEC=", 0), 0u) << message;
  EXPECT_NE(message.find("\nSTATUS=reloading\n"), std::string::npos) << message;
}

}  // namespace
}  // namespace netif_rx
