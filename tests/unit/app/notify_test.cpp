#include "app/notify.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>

namespace netif_rx {
namespace {

TEST(Notify, FormatsOneFieldPerLine) {
  EXPECT_EQ(format_notify_message({{"READY", "1"}, {"STATUS", "serving"}}),
            "READY=1\nSTATUS=serving\n");
  EXPECT_EQ(format_notify_message({{"STATUS", "two\nlines"}}), "STATUS=two lines\n");
  EXPECT_EQ(format_notify_message({}), "");
}

TEST(Notify, WatchdogIntervalOnlyForThisProcess) {
  using std::chrono::microseconds;
  EXPECT_EQ(watchdog_interval_from("30000000", nullptr, 42), microseconds(30000000));
  EXPECT_EQ(watchdog_interval_from("30000000", "42", 42), microseconds(30000000));
  EXPECT_FALSE(watchdog_interval_from("30000000", "43", 42));
  EXPECT_FALSE(watchdog_interval_from(nullptr, nullptr, 42));
  EXPECT_FALSE(watchdog_interval_from("0", nullptr, 42));
  EXPECT_FALSE(watchdog_interval_from("abc", nullptr, 42));
}

TEST(Notify, OnlyAUnixSocketPathEnablesIt) {
  EXPECT_FALSE(Notifier().enabled());
  EXPECT_FALSE(Notifier("relative/path").enabled());
  EXPECT_FALSE(Notifier("/" + std::string(200, 'x')).enabled());  // longer than sun_path
  EXPECT_TRUE(Notifier("/run/systemd/notify").enabled());
  EXPECT_TRUE(Notifier("@abstract").enabled());
}

TEST(Notify, FollowsTheEnvironment) {
  ::setenv("NOTIFY_SOCKET", "/run/x/notify", 1);
  ::setenv("WATCHDOG_USEC", "2000000", 1);
  ::unsetenv("WATCHDOG_PID");
  const Notifier from_systemd = Notifier::from_environment();
  ::unsetenv("NOTIFY_SOCKET");
  ::unsetenv("WATCHDOG_USEC");
  EXPECT_TRUE(from_systemd.enabled());
  EXPECT_EQ(from_systemd.watchdog(), std::chrono::microseconds(2000000));
  const Notifier outside = Notifier::from_environment();
  EXPECT_FALSE(outside.enabled());
  EXPECT_FALSE(outside.watchdog());
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

  Notifier notifier(path);
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
