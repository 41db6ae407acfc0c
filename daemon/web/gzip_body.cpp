#include "web/gzip_body.h"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <stdexcept>

namespace netif_rx {
namespace {

// deflateInit2's windowBits for a gzip wrapper around a 32 KiB window.
constexpr int kGzipWindowBits = 15 + 16;
constexpr int kMemoryLevel = 8;
// Level 1: a text exposition shrinks about as much as at level 6, several
// times faster.
constexpr int kLevel = 1;

// The least output buffer: a small body's gzip header, blocks and trailer.
constexpr std::size_t kFirstOutputBytes = 4096;

// A deflate stream kept for the thread's next body.
class Deflater {
 public:
  Deflater() {
    if (deflateInit2(&stream_, kLevel, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("gzip: deflateInit2 failed");
    }
  }
  ~Deflater() { deflateEnd(&stream_); }
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  // The stream, ready for a new gzip member. A stream that a failed deflate
  // left unusable is made anew, so one failure never refuses every later body.
  z_stream& reset() {
    if (deflateReset(&stream_) == Z_OK) return stream_;
    deflateEnd(&stream_);
    stream_ = z_stream{};
    if (deflateInit2(&stream_, kLevel, Z_DEFLATED, kGzipWindowBits, kMemoryLevel,
                     Z_DEFAULT_STRATEGY) != Z_OK) {
      throw std::runtime_error("gzip: deflateReset and deflateInit2 failed");
    }
    return stream_;
  }

 private:
  z_stream stream_{};
};

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Whether the parameters of one coding (after its name) say q=0.
bool refused(std::string_view parameters) {
  while (!parameters.empty()) {
    const auto semicolon = parameters.find(';');
    const std::string_view parameter = trim(parameters.substr(0, semicolon));
    parameters =
        semicolon == std::string_view::npos ? std::string_view{} : parameters.substr(semicolon + 1);
    if (parameter.size() < 2 || std::tolower(static_cast<unsigned char>(parameter[0])) != 'q' ||
        parameter[1] != '=')
      continue;
    const std::string_view value = trim(parameter.substr(2));
    // q=0, q=0.0, q=0.00, q=0.000: refused; anything else accepts.
    return !value.empty() && value.front() == '0' &&
           value.find_first_not_of("0.", 0) == std::string_view::npos;
  }
  return false;
}

}  // namespace

bool accepts_gzip(const char* accept_encoding) {
  if (accept_encoding == nullptr) return false;
  // gzip named explicitly decides; otherwise `*` does.
  bool named = false;
  bool named_accepted = false;
  bool any_accepted = false;
  std::string_view rest(accept_encoding);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view coding = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto semicolon = coding.find(';');
    const std::string_view name = trim(coding.substr(0, semicolon));
    const std::string_view parameters =
        semicolon == std::string_view::npos ? std::string_view{} : coding.substr(semicolon + 1);
    if (equals_ignoring_case(name, "gzip")) {
      named = true;
      named_accepted = named_accepted || !refused(parameters);
    } else if (name == "*") {
      any_accepted = any_accepted || !refused(parameters);
    }
  }
  return named ? named_accepted : any_accepted;
}

std::string gzip_compress(std::string_view text) {
  if (text.size() > UINT_MAX) throw std::runtime_error("gzip: body too large");
  // One deflate state per thread (the render thread's), reset for each body:
  // deflateInit2 would allocate and clear some 260 KiB of window and hash
  // tables on every scrape.
  thread_local Deflater deflater;
  z_stream& stream = deflater.reset();
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  // The output grows as deflate fills it, from an eighth of the text (an
  // exposition shrinks some 10 times), doubling when full: no buffer of the
  // text's whole size to allocate and clear.
  std::string out;
  std::size_t capacity = std::max<std::size_t>(text.size() / 8, kFirstOutputBytes);
  for (;;) {
    const std::size_t written = out.size();
    out.resize(capacity);
    stream.next_out = reinterpret_cast<Bytef*>(out.data() + written);
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(capacity - written, UINT_MAX));
    stream.avail_out = chunk;
    const int rc = deflate(&stream, Z_FINISH);
    out.resize(written + (chunk - stream.avail_out));
    if (rc == Z_STREAM_END) return out;
    if (rc != Z_OK && rc != Z_BUF_ERROR) throw std::runtime_error("gzip: deflate failed");
    capacity *= 2;
  }
}

}  // namespace netif_rx
