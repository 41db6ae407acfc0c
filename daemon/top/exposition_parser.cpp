#include "top/exposition_parser.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace netif_rx {
namespace {

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

// Reads one line's sample; `line_number` is for messages.
class LineParser {
 public:
  LineParser(std::string_view line, std::size_t line_number)
      : line_(line), line_number_(line_number) {}

  ExpositionSample parse() {
    ExpositionSample sample;
    sample.name = name("metric name");
    bool blank = skip_blanks();
    if (peek() == '{') {
      ++pos_;
      parse_labels(sample.labels);
      blank = skip_blanks();
    }
    if (!blank) fail("expected a space before the value");
    sample.value = value();
    skip_blanks();
    if (pos_ < line_.size()) timestamp();
    return sample;
  }

 private:
  char peek() const { return pos_ < line_.size() ? line_[pos_] : '\0'; }

  bool skip_blanks() {
    const std::size_t start = pos_;
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
    return pos_ > start;
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw ExpositionParseError("line " + std::to_string(line_number_) + ": " + what + ": '" +
                               std::string(line_.substr(0, 200)) + "'");
  }

  std::string name(const char* what) {
    const std::size_t start = pos_;
    if (!is_name_start(peek())) fail(std::string("expected a ") + what);
    while (pos_ < line_.size() && is_name_char(line_[pos_])) ++pos_;
    return std::string(line_.substr(start, pos_ - start));
  }

  void parse_labels(std::map<std::string, std::string>& labels) {
    skip_blanks();
    while (peek() != '}') {
      std::string label = name("label name");
      skip_blanks();
      if (peek() != '=') fail("expected '=' after label " + label);
      ++pos_;
      skip_blanks();
      std::string value = quoted();
      if (!labels.emplace(std::move(label), std::move(value)).second) fail("duplicate label");
      skip_blanks();
      if (peek() == ',') {
        ++pos_;
        skip_blanks();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after a label value");
      }
    }
    ++pos_;
  }

  // A double-quoted label value; \\, \" and \n are its only escapes.
  std::string quoted() {
    if (peek() != '"') fail("expected '\"' to open a label value");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= line_.size()) fail("unterminated label value");
      const char c = line_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= line_.size()) fail("unterminated label value");
      const char escaped = line_[pos_++];
      switch (escaped) {
        case '\\':
          out += '\\';
          break;
        case '"':
          out += '"';
          break;
        case 'n':
          out += '\n';
          break;
        default:
          // The format defines no other escape: keep it as written.
          out += '\\';
          out += escaped;
      }
    }
  }

  std::string token() {
    const std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    return std::string(line_.substr(start, pos_ - start));
  }

  double value() {
    const std::string text = token();
    if (text == "+Inf" || text == "Inf") return std::numeric_limits<double>::infinity();
    if (text == "-Inf") return -std::numeric_limits<double>::infinity();
    if (text == "NaN") return std::numeric_limits<double>::quiet_NaN();
    char* end = nullptr;
    errno = 0;
    const double parsed = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE ||
        !std::isfinite(parsed)) {
      fail("'" + text + "' is not a sample value");
    }
    return parsed;
  }

  void timestamp() {
    const std::string text = token();
    char* end = nullptr;
    std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || end != text.c_str() + text.size())
      fail("'" + text + "' is not a timestamp");
    skip_blanks();
    if (pos_ < line_.size()) fail("unexpected text after the timestamp");
  }

  std::string_view line_;
  std::size_t line_number_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<ExpositionSample> parse_exposition_text(std::string_view text) {
  std::vector<ExpositionSample> samples;
  std::size_t line_number = 0;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] == '#') continue;
    samples.push_back(LineParser(line.substr(first), line_number).parse());
  }
  return samples;
}

}  // namespace netif_rx
