// A collectable that can write its exposition text itself, faster than
// prometheus-cpp serializes the families of its Collect(). The /metrics
// handler asks for the text where a collectable offers it.
#pragma once

#include <string>

namespace netif_rx {

class TextExposition {
 public:
  virtual ~TextExposition() = default;
  // Appends the text format of what Collect() returns, byte for byte.
  virtual void write_text(std::string& out) const = 0;
};

}  // namespace netif_rx
