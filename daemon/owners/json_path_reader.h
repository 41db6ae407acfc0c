// A bounded streaming JSON reader for the runtimes' state files: it follows
// the path of keys to each string value and hands it over, storing nothing
// else. A text that is not a JSON object, or nests deeper than
// kMaxJsonDepth, is refused. The caller bounds the text's size.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace netif_rx {

inline constexpr std::size_t kMaxJsonDepth = 64;

class JsonPathReader {
 public:
  virtual ~JsonPathReader() = default;

  // False when `text` is not one JSON object within the depth bound.
  bool parse(std::string_view text);

 protected:
  // One open object or array: for an object, the last key read in it.
  struct Frame {
    bool object = false;
    std::string key;
  };
  using Path = std::vector<Frame>;

  // A string value at `path` (the innermost frame holds it).
  virtual void on_string(const Path& path, const std::string& value) = 0;
  // The object that `path`'s innermost frame is ends.
  virtual void on_object_end(const Path& path) { (void)path; }

  // True when `path` is exactly the objects of `keys` from the root: {"a",
  // "b"} is the value of key "b" of the object that is the root's key "a".
  static bool at(const Path& path, std::initializer_list<std::string_view> keys);

 private:
  class Sax;
};

}  // namespace netif_rx
