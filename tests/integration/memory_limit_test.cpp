// The exporter under a memory cgroup's limit: a configuration whose BPF maps
// (charged to the cgroup) and own memory do not fit is refused at the start,
// in one line naming the limit and the figure it needs; one that fits starts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "exporter_process.h"

namespace netif_rx::test {
namespace {

namespace fs = std::filesystem;

// A memory cgroup of the test's own (v2, or v1's memory hierarchy), removed
// at the end; a process joins it by writing its PID to `procs()`.
class MemoryCgroup {
 public:
  MemoryCgroup(const std::string& name, std::uint64_t limit_bytes) {
    if (fs::exists("/sys/fs/cgroup/cgroup.controllers")) {
      std::ofstream("/sys/fs/cgroup/cgroup.subtree_control") << "+memory";
      dir_ = "/sys/fs/cgroup/" + name;
      limit_file_ = "memory.max";
    } else if (fs::exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
      dir_ = "/sys/fs/cgroup/memory/" + name;
      limit_file_ = "memory.limit_in_bytes";
    } else {
      return;
    }
    std::error_code error;
    fs::create_directory(dir_, error);
    std::ofstream limit(dir_ + "/" + limit_file_);
    limit << limit_bytes;
    limit.close();
    ok_ = static_cast<bool>(limit) && fs::exists(dir_ + "/cgroup.procs");
  }
  ~MemoryCgroup() {
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;

  bool ok() const { return ok_; }
  std::string where() const { return dir_ + "/" + limit_file_; }
  // Runs the exporter in the cgroup: ExporterProcess's command prefix.
  std::vector<std::string> prefix() const {
    return {"sh", "-c", "echo $$ > " + dir_ + "/cgroup.procs && exec \"$0\" \"$@\""};
  }

 private:
  std::string dir_;
  std::string limit_file_;
  bool ok_ = false;
};

TEST(MemoryLimit, MapsThatDoNotFitAreRefusedInOneLineNamingTheFigures) {
  ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
  // The Helm chart's limit.
  MemoryCgroup cgroup("netif_rx_memory_test_" + std::to_string(::getpid()), 256ULL << 20);
  ASSERT_TRUE(cgroup.ok()) << "no memory cgroup could be made (cgroup v2 with the memory "
                              "controller, or v1's memory hierarchy, is needed)";
  {
    ExporterProcess refused("max_devices: 1048576\n", {}, "", cgroup.prefix());
    EXPECT_FALSE(refused.wait_ready());
    const std::string log = refused.log();
    const std::size_t at = log.find("the memory cgroup's limit, 256 MiB (" + cgroup.where() + ")");
    ASSERT_NE(at, std::string::npos) << log;
    const std::string line = log.substr(at, log.find('\n', at) - at);
    std::printf("refused: %s\n", line.c_str());
    EXPECT_NE(line.find("max_devices=1048576"), std::string::npos) << line;
    EXPECT_NE(line.find("or lower max_devices"), std::string::npos) << line;
    EXPECT_NE(refused.stop(), 0);
  }
  {
    ExporterProcess fits("max_devices: 4096\n", {}, "", cgroup.prefix());
    EXPECT_TRUE(fits.wait_ready()) << fits.log();
    EXPECT_EQ(fits.stop(), 0) << fits.log();
  }
}

}  // namespace
}  // namespace netif_rx::test
