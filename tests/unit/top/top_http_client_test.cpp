#include "top/top_http_client.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "cli/cli.h"

namespace netif_rx {
namespace {

std::string error_of(const TopFromOptions& from, const char* env) {
  try {
    top_http_client_options(from, env);
  } catch (const CliError& e) {
    return e.what();
  }
  return "";
}

TEST(TopHttpClient, PasswordFromFileOrEnvironment) {
  TopFromOptions from;
  from.user = "prom";
  const std::string path = "/tmp/netif_rx_top_pw_" + std::to_string(::getpid());
  std::ofstream(path) << "s3cret\n";
  from.password_file = path;
  EXPECT_EQ(top_http_client_options(from, "ignored").password, "s3cret");
  from.password_file.reset();
  EXPECT_EQ(top_http_client_options(from, "fromenv").password, "fromenv");
  EXPECT_EQ(*top_http_client_options(from, "fromenv").user, "prom");
  ::unlink(path.c_str());
}

TEST(TopHttpClient, MissingPasswordIsOneLine) {
  TopFromOptions from;
  from.user = "prom";
  EXPECT_EQ(error_of(from, nullptr),
            "--from.user needs a password: put it in a file named by --from.password-file, or "
            "in $NETIF_RX_TOP_PASSWORD");
  from.password_file = "/nonexistent/pw";
  EXPECT_EQ(error_of(from, nullptr),
            "--from.password-file: cannot read '/nonexistent/pw': No such file or directory");
}

TEST(TopHttpClient, WithoutUserNoAuth) {
  TopFromOptions from;
  from.max_body_bytes = 12345;
  const HttpClientOptions client = top_http_client_options(from, "unused");
  EXPECT_FALSE(client.user);
  EXPECT_EQ(client.limits.max_body_bytes, 12345U);
}

}  // namespace
}  // namespace netif_rx
