#include "web/gzip_body.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <string>

namespace netif_rx {
namespace {

// Inflates one gzip member; "" when it is not one.
std::string gunzip(const std::string& compressed) {
  z_stream stream{};
  if (inflateInit2(&stream, 15 + 16) != Z_OK) return "";
  std::string out(1 << 20, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  inflateEnd(&stream);
  return rc == Z_STREAM_END ? out : "";
}

TEST(GzipBody, CompressesToAGzipMemberThatInflatesToTheText) {
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    text += "netif_rx_packets_total{device=\"veth" + std::to_string(i) + "\",cpu=\"0\"} 42\n";
  }
  const std::string compressed = gzip_compress(text);
  ASSERT_GE(compressed.size(), 2U);
  EXPECT_EQ(static_cast<unsigned char>(compressed[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(compressed[1]), 0x8b);
  EXPECT_LT(compressed.size(), text.size() / 5);
  EXPECT_EQ(gunzip(compressed), text);
  EXPECT_EQ(gunzip(gzip_compress("")), "");
}

// The thread's deflate state is reset between bodies, and the output grows
// past its first guess (an eighth of the text) where the text does not
// shrink: bytes that compress badly, then text again.
TEST(GzipBody, EachBodyIsAMemberOfItsOwnOnTheSameThread) {
  std::string noise;
  std::uint64_t state = 88172645463325252ULL;
  for (int i = 0; i < 300000; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    noise.push_back(static_cast<char>(state));
  }
  const std::string text(100000, 'x');
  const std::string* bodies[] = {&text, &noise, &text, &noise};
  for (const std::string* body : bodies) {
    const std::string compressed = gzip_compress(*body);
    EXPECT_EQ(gunzip(compressed), *body) << body->size() << " bytes";
  }
  EXPECT_GT(gzip_compress(noise).size(), noise.size() / 8);
}

TEST(GzipBody, AcceptsGzipAsPrometheusAndBrowsersAskForIt) {
  EXPECT_TRUE(accepts_gzip("gzip"));
  EXPECT_TRUE(accepts_gzip("gzip, deflate, br"));
  EXPECT_TRUE(accepts_gzip("br,  GZip ;q=0.5"));
  EXPECT_TRUE(accepts_gzip("*"));
  EXPECT_TRUE(accepts_gzip("identity;q=1, gzip;q=1.0"));
}

TEST(GzipBody, RefusesWithoutGzipOrWithQZero) {
  EXPECT_FALSE(accepts_gzip(nullptr));
  EXPECT_FALSE(accepts_gzip(""));
  EXPECT_FALSE(accepts_gzip("identity"));
  EXPECT_FALSE(accepts_gzip("deflate, br"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0"));
  EXPECT_FALSE(accepts_gzip("gzip; q=0.000"));
  EXPECT_FALSE(accepts_gzip("x-gzip"));
  EXPECT_FALSE(accepts_gzip("gzipped"));
  EXPECT_FALSE(accepts_gzip(",,;;,"));
  EXPECT_FALSE(accepts_gzip("gzip;q=0, *"));
  EXPECT_FALSE(accepts_gzip("*;q=0"));
}

}  // namespace
}  // namespace netif_rx
