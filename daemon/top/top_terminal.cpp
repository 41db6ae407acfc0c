#include "top/top_terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace netif_rx {
namespace {

constexpr unsigned kDefaultWidth = 80;
constexpr const char* kHideCursor = "\x1b[?25l";
constexpr const char* kShowCursor = "\x1b[?25h";
constexpr const char* kHomeAndClear = "\x1b[H\x1b[J";

}  // namespace

unsigned choose_width(std::optional<unsigned> ioctl_columns, const char* columns_env) {
  if (ioctl_columns && *ioctl_columns > 0) return *ioctl_columns;
  if (columns_env != nullptr && *columns_env != '\0') {
    char* end = nullptr;
    const long columns = std::strtol(columns_env, &end, 10);
    if (*end == '\0' && columns > 0 && columns < 100000) return static_cast<unsigned>(columns);
  }
  return kDefaultWidth;
}

unsigned terminal_width(int fd) {
  winsize size{};
  std::optional<unsigned> columns;
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0) columns = size.ws_col;
  return choose_width(columns, std::getenv("COLUMNS"));
}

bool write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

LiveScreen::LiveScreen(bool terminal) : terminal_(terminal) {
  if (terminal_) write_all(STDOUT_FILENO, kHideCursor);
}

LiveScreen::~LiveScreen() {
  if (terminal_) write_all(STDOUT_FILENO, kShowCursor);
}

bool LiveScreen::draw(const std::string& frame) {
  std::string out;
  if (terminal_) {
    out = kHomeAndClear;
  } else if (drawn_) {
    out = "\n";
  }
  drawn_ = true;
  return write_all(STDOUT_FILENO, out + frame);
}

}  // namespace netif_rx
