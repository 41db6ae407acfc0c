#include "top/http_fetch.h"

#include <gtest/gtest.h>

#include "error_text.h"

namespace netif_rx {
namespace {

std::string error_of(std::string_view raw, const HttpLimits& limits = {}) {
  return test::error_text<HttpFetchError>([&] { parse_http_response(raw, limits); });
}

TEST(HttpUrl, Parses) {
  const auto full = parse_http_url("http://127.0.0.1:19100/metrics?x=1#frag");
  ASSERT_TRUE(full);
  EXPECT_EQ(full->host, "127.0.0.1");
  EXPECT_EQ(full->port, "19100");
  EXPECT_EQ(full->target, "/metrics?x=1");

  const auto bare = parse_http_url("http://exporter.example");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->host, "exporter.example");
  EXPECT_EQ(bare->port, "80");
  EXPECT_EQ(bare->target, "/");

  ASSERT_TRUE(parse_http_url("http://[::1]/m"));
  const auto ipv6 = parse_http_url("http://[::1]:9/m");
  ASSERT_TRUE(ipv6);
  EXPECT_EQ(ipv6->host, "::1");
  EXPECT_EQ(ipv6->port, "9");
  EXPECT_EQ(ipv6->target, "/m");
}

TEST(HttpUrl, Rejects) {
  for (const char* url :
       {"ftp://h/metrics", "h:19100/metrics", "http://h/a b", "http://h/\r\n", "http://",
        "http://:80/", "http://h:/m", "http://h:0/m", "http://h:65536/m", "http://h:x/m",
        "http://u:p@h/m", "http://[::1/m", "http://[::1]x/m"}) {
    EXPECT_FALSE(parse_http_url(url)) << url;
  }
}

TEST(HttpUrl, Https) {
  const auto url = parse_http_url("https://[::1]/metrics");
  ASSERT_TRUE(url);
  EXPECT_TRUE(url->tls);
  EXPECT_EQ(url->port, "443");
  EXPECT_EQ(url_endpoint(*url), "[::1]:443");
  EXPECT_FALSE(parse_http_url("http://h/")->tls);
}

TEST(HttpResponse, ContentLength) {
  const HttpResponse response = parse_http_response(
      "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 5\r\n\r\n"
      "hello and more");
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.reason, "OK");
  EXPECT_EQ(response.headers.at("content-type"), "text/plain; version=0.0.4");
  EXPECT_EQ(response.body, "hello");
}

TEST(HttpResponse, Chunked) {
  const HttpResponse response = parse_http_response(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\nA;ext=1\r\n, world!!!\r\n0\r\n\r\n");
  EXPECT_EQ(response.body, "hello, world!!!");
}

TEST(HttpResponse, UntilClose) {
  const HttpResponse response = parse_http_response("HTTP/1.0 404 Not Found\r\n\r\nnope");
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.reason, "Not Found");
  EXPECT_EQ(response.body, "nope");
}

TEST(HttpResponse, Rejects) {
  EXPECT_EQ(error_of("SSH-2.0-OpenSSH_9.2\r\n"), "the answer is not HTTP (no end of headers)");
  EXPECT_EQ(error_of("ICY 200 OK\r\n\r\n"), "the answer is not HTTP: 'ICY 200 OK'");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"),
            "the answer was cut short: 5 of 10 bytes");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            "malformed chunk size 'zz'");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel"),
            "truncated chunked body");
}

TEST(HttpResponse, ChunkSizesCannotWrap) {
  // 2^64 - 2: added to the 2 bytes of CRLF it would wrap to 0.
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "fffffffffffffffe\r\nx\r\n0\r\n\r\n"),
            "a chunk of more than 8388608 bytes exceeds the body limit (chunk size "
            "'fffffffffffffffe')");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                     "10000000000000000000002\r\nxx\r\n0\r\n\r\n"),
            "a chunk of more than 8388608 bytes exceeds the body limit (chunk size "
            "'10000000000000000000002')");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n"),
            "malformed chunk size '-1'");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n"),
            "a chunk does not end in CRLF");
}

TEST(HttpResponse, Limits) {
  HttpLimits small;
  small.max_header_bytes = 64;
  small.max_body_bytes = 8;
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a') + "\r\n\r\n", small),
            "the headers exceed 64 bytes");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\n\r\n123456789", small), "the body exceeds 8 bytes");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999999\r\n\r\n", small),
            "the body (Content-Length '99999999999999999999999') exceeds 8 bytes");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
                     "5\r\nworld\r\n0\r\n\r\n",
                     HttpLimits{64, 64}),
            "");
  EXPECT_NE(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
                     "5\r\nworld\r\n0\r\n\r\n",
                     HttpLimits{64, 24}),
            "");
}

TEST(HttpResponse, CompleteWhileArriving) {
  const HttpLimits limits;
  EXPECT_FALSE(http_response_complete("HTTP/1.1 200 OK\r\nContent-Le", limits));
  EXPECT_FALSE(http_response_complete("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab", limits));
  EXPECT_TRUE(http_response_complete("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", limits));
  EXPECT_FALSE(http_response_complete(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n", limits));
  EXPECT_TRUE(http_response_complete(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n", limits));
  EXPECT_THROW(http_response_complete(std::string(70000, 'H'), limits), HttpFetchError);
}

TEST(HttpGet, UnreachableIsOneLine) {
  // Port 1 on loopback: nothing listens there in a test environment.
  HttpClientOptions options;
  options.timeout = std::chrono::milliseconds(2000);
  try {
    http_get("http://127.0.0.1:1/metrics", options);
    FAIL() << "expected an error";
  } catch (const HttpFetchError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot connect to 127.0.0.1:1: Connection refused");
  }
  EXPECT_THROW(http_get("ftp://127.0.0.1/", options), HttpFetchError);
}

TEST(HttpGet, BasicAuthorization) {
  EXPECT_EQ(basic_authorization("Aladdin", "open sesame"), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

}  // namespace
}  // namespace netif_rx
