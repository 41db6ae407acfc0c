#include "owners/json_path_reader.h"

#include <nlohmann/json.hpp>

namespace netif_rx {

class JsonPathReader::Sax final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Sax(JsonPathReader& reader) : reader_(reader) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& value) override {
    reader_.on_string(path_, value);
    return true;
  }
  bool start_object(std::size_t) override { return push(true); }
  bool key(string_t& name) override {
    path_.back().key = name;
    return true;
  }
  bool end_object() override {
    reader_.on_object_end(path_);
    path_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return push(false); }
  bool end_array() override {
    path_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool push(bool object) {
    if (path_.empty() && !object) return false;  // the root is an object
    if (path_.size() >= kMaxJsonDepth) return false;
    path_.push_back({object, {}});
    return true;
  }

  JsonPathReader& reader_;
  Path path_;
};

bool JsonPathReader::parse(std::string_view text) {
  Sax sax(*this);
  try {
    return nlohmann::json::sax_parse(text.begin(), text.end(), &sax,
                                     nlohmann::detail::input_format_t::json, true);
  } catch (const std::exception&) {
    return false;
  }
}

bool JsonPathReader::at(const Path& path, std::initializer_list<std::string_view> keys) {
  if (path.size() != keys.size()) return false;
  std::size_t i = 0;
  for (std::string_view key : keys) {
    if (!path[i].object || path[i].key != key) return false;
    ++i;
  }
  return true;
}

}  // namespace netif_rx
