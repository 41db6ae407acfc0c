// The terminal side of `top`: its width, and a screen that is redrawn in
// place on a terminal and appended to anywhere else (no escape codes).
#pragma once

#include <optional>
#include <string>

namespace netif_rx {

// The width to render for: the terminal's (`ioctl_columns`, 0 meaning
// unknown), else $COLUMNS when it is a positive number, else 80. Pure.
unsigned choose_width(std::optional<unsigned> ioctl_columns, const char* columns_env);

// choose_width() for `fd`, asking the terminal with TIOCGWINSZ.
unsigned terminal_width(int fd);

// Writes all of `text` to `fd`; false when it can't (e.g. a closed pipe).
bool write_all(int fd, const std::string& text);

// Frames on stdout. On a terminal each frame replaces the previous one (cursor
// home, clear) and the cursor is hidden until the screen goes; elsewhere
// frames are written one after another, separated by a blank line.
class LiveScreen {
 public:
  explicit LiveScreen(bool terminal);
  ~LiveScreen();
  LiveScreen(const LiveScreen&) = delete;
  LiveScreen& operator=(const LiveScreen&) = delete;

  // False when stdout can't be written any more.
  bool draw(const std::string& frame);
  bool terminal() const { return terminal_; }

 private:
  bool terminal_;
  bool drawn_ = false;
};

}  // namespace netif_rx
