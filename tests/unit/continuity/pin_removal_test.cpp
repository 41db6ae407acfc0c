#include "continuity/pin_removal.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "continuity/bpffs_directory.h"
#include "continuity/probe_error.h"
#include "error_text.h"

namespace netif_rx {
namespace {

// A temporary directory (not on a BPF filesystem), removed at the end.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    char dir_template[] = "/tmp/netif_rx_unpin.XXXXXX";
    if (::mkdtemp(dir_template) != nullptr) path_ = dir_template;
  }
  ~TemporaryDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Nothing there is nothing to do: an uninstall may run unpin twice, or where
// the exporter never pinned. The directory is not created.
TEST(RemovePinnedProbe, NothingPinnedIsNoError) {
  TemporaryDirectory temporary;
  ASSERT_FALSE(temporary.path().empty());
  const std::string root = temporary.path() + "/netif_rx_exporter";
  const PinRemoval removal = remove_pinned_probe(root);
  EXPECT_FALSE(removal.found);
  EXPECT_TRUE(removal.removed.empty());
  EXPECT_FALSE(std::filesystem::exists(root));
}

// A directory that is not on a BPF filesystem holds no pins of the exporter:
// refused, and nothing in it is touched.
TEST(RemovePinnedProbe, RefusesADirectoryOutsideABpfFilesystem) {
  TemporaryDirectory temporary;
  ASSERT_FALSE(temporary.path().empty());
  std::filesystem::create_directory(temporary.path() + "/v4");
  std::ofstream(temporary.path() + "/v4/link") << "not a pin";
  EXPECT_EQ(test::error_text<ProbeError>([&] { remove_pinned_probe(temporary.path()); }),
            "the pin directory " + temporary.path() +
                " is not on a BPF filesystem; mount one (mount -t bpf bpf /sys/fs/bpf) or choose "
                "a directory under one for --bpf.pin-path");
  EXPECT_TRUE(std::filesystem::exists(temporary.path() + "/v4/link"));
}

TEST(BpffsDirectory, NamesALayoutDirectory) {
  EXPECT_TRUE(is_layout_directory("v4"));
  EXPECT_TRUE(is_layout_directory("v12"));
  for (const char* other : {"v", "control", "v4a", "x4", ""}) {
    EXPECT_FALSE(is_layout_directory(other)) << other;
  }
}

}  // namespace
}  // namespace netif_rx
