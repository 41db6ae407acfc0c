#include "util/read_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace netif_rx {
namespace {

class ReadFile : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove(path_); }
  const std::string path_ = std::filesystem::temp_directory_path() /
                            ("netif_rx_read_file_test." + std::to_string(::getpid()));
};

TEST_F(ReadFile, ReadsWholeFilesOfManyPiecesAndCutsAtTheBound) {
  std::string text;
  for (int i = 0; i < 40000; ++i) text.push_back(static_cast<char>('a' + i % 26));
  std::ofstream(path_, std::ios::binary) << text;
  EXPECT_EQ(read_file(path_), text);
  EXPECT_EQ(read_file(path_, text.size()), text);
  EXPECT_EQ(read_file(path_, 16384), text.substr(0, 16384));
  EXPECT_EQ(read_file(path_, 20000), text.substr(0, 20000));
  EXPECT_EQ(read_file(path_, 0), "");
}

TEST_F(ReadFile, EmptyProcAndMissingFiles) {
  std::ofstream(path_, std::ios::binary) << "";
  EXPECT_EQ(read_file(path_), "");
  EXPECT_FALSE(read_file(path_ + ".absent"));
  // /proc files report no size: read all the same.
  const auto status = read_file("/proc/self/status");
  ASSERT_TRUE(status);
  EXPECT_NE(status->find("Pid:"), std::string::npos);
}

}  // namespace
}  // namespace netif_rx
