// A parser of the Prometheus text exposition format (version 0.0.4): the
// samples of a /metrics page, with label values unescaped. Pure.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "top/exposition_parse_error.h"

namespace netif_rx {

struct ExpositionSample {
  std::string name;
  std::map<std::string, std::string> labels;  // unescaped values
  double value = 0;
};

// Every sample in `text`, in order; comments (# HELP, # TYPE, # EOF, others)
// and blank lines are skipped, a timestamp after the value is ignored.
// Throws ExpositionParseError.
std::vector<ExpositionSample> parse_exposition_text(std::string_view text);

}  // namespace netif_rx
