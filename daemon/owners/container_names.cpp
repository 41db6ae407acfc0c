#include "owners/container_names.h"

#include "owners/json_path_reader.h"

namespace netif_rx {
namespace {

// The index is an array: read as the value of a wrapping object's key "c".
class ContainerNamesReader final : public JsonPathReader {
 public:
  std::map<std::string, std::string> names;

 private:
  // c[i].id, c[i].names[j]
  static bool in_entry(const Path& path) {
    return path.size() >= 3 && path[0].object && path[0].key == "c" && !path[1].object &&
           path[2].object;
  }
  void on_string(const Path& path, const std::string& value) override {
    if (!in_entry(path)) return;
    if (path.size() == 3 && path[2].key == "id") id_ = value;
    if (path.size() == 4 && path[2].key == "names" && !path[3].object && name_.empty()) {
      name_ = value;
    }
  }
  void on_object_end(const Path& path) override {
    if (path.size() != 3 || !in_entry(path)) return;
    if (!id_.empty() && !name_.empty()) names[id_] = name_;
    id_.clear();
    name_.clear();
  }

  std::string id_;
  std::string name_;
};

}  // namespace

std::map<std::string, std::string> parse_container_names(std::string_view json_text) {
  if (json_text.size() > kMaxContainerIndexBytes) return {};
  std::string wrapped = "{\"c\":";
  wrapped.append(json_text);
  wrapped += '}';
  ContainerNamesReader reader;
  if (!reader.parse(wrapped)) return {};
  return std::move(reader.names);
}

}  // namespace netif_rx
