// A `podman kube play` pod (a real infra container in a network namespace
// the runtime made, and a container of the pod joining it) is named by
// podman's own data: its processes' libpod cgroups lead to podman's bundles
// and to containers/storage's containers.json, which name the pod's infra
// container. End to end through HTTP: the info series, and the pod's
// loopback packets under the same netns label. The pod has no network but
// its loopback (--network none): nothing on the host's side. The pod, its
// namespace's name and the files go when the test ends, also when it fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "command.h"
#include "exporter_process.h"
#include "lifecycle_support.h"
#include "series_query.h"
#include "test_network.h"

namespace netif_rx::test {
namespace {

// Each datagram to a closed port draws an ICMP error back over the loopback.
constexpr int kDatagrams = 3;
const std::string kStorageRoot = "/var/lib/containers/storage/overlay-containers";

// podman as the other tests run it (tests/fleet): runc, cgroupfs.
std::vector<std::string> podman(const std::string& conf, std::vector<std::string> args) {
  std::vector<std::string> argv{"env",  "CONTAINERS_CONF=" + conf, "podman",  "--runtime",
                                "runc", "--cgroup-manager",        "cgroupfs"};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

class PodmanPod : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(::geteuid(), 0U) << "the integration tests load BPF: run them as root";
    ASSERT_EQ(run_command({"podman", "--version"}).exit_code, 0)
        << "podman is missing: scripts/install-deps.sh installs it";
    ASSERT_TRUE(std::filesystem::exists("/usr/libexec/podman/catatonit"))
        << "catatonit is missing (podman builds its pause image from it): "
           "scripts/install-deps.sh installs it";
    name_ = "nrxpod" + std::to_string(::getpid());
    dir_ = std::filesystem::temp_directory_path() / name_;
    std::filesystem::create_directories(dir_);
    conf_ = (dir_ / "containers.conf").string();
    // The limits the fleet tests give podman run: the default ones may exceed this machine's.
    std::ofstream(conf_) << "[containers]\ndefault_ulimits = [\"nofile=1024:1024\", "
                            "\"nproc=1024:1024\"]\n";
  }

  void TearDown() override {
    if (!infra_pid_.empty()) (void)run_command({"ip", "netns", "del", name_});
    (void)run_command(podman(conf_, {"pod", "rm", "-f", "-t", "0", name_}));
    (void)run_command(podman(conf_, {"pod", "rm", "-f", "-t", "0", name_ + "-warm"}));
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // podman's pause image (built locally from catatonit by podman itself the
  // first time a pod needs it): the image of the pod's container too.
  std::string pause_image() {
    (void)run_command(podman(conf_, {"pod", "create", "--name", name_ + "-warm"}));
    (void)run_command(podman(conf_, {"pod", "rm", "-f", "-t", "0", name_ + "-warm"}));
    const CommandResult images =
        run_command(podman(conf_, {"images", "--format", "{{.Repository}}:{{.Tag}}", "--filter",
                                   "reference=localhost/podman-pause"}));
    return trimmed(images.output.substr(0, images.output.find('\n')));
  }

  std::string inspect(const std::string& format, const std::string& what) {
    return trimmed(run_command(podman(conf_, {"inspect", "--format", format, what})).output);
  }

  std::string name_;
  std::filesystem::path dir_;
  std::string conf_;
  std::string infra_pid_;
};

TEST_F(PodmanPod, KubePlayPodIsNamedByPodmansOwnData) {
  const std::string image = pause_image();
  ASSERT_FALSE(image.empty()) << "podman built no pause image";
  const std::string pod_yaml = (dir_ / "pod.yaml").string();
  std::ofstream(pod_yaml) << "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " << name_
                          << "\nspec:\n  containers:\n    - name: app\n      image: " << image
                          << "\n      command: [\"/catatonit\", \"-P\"]\n";
  ExporterProcess exporter(
      "poll_interval: 200ms\nnamespaces: all\nbpf_stats:\n  mode: \"off\"\n"
      "attribution:\n  bundle_roots: [" +
      kStorageRoot + "]\n");
  ASSERT_TRUE(exporter.wait_ready()) << exporter.log();
  const CommandResult play =
      run_command(podman(conf_, {"kube", "play", "--network", "none", pod_yaml}));
  ASSERT_EQ(play.exit_code, 0) << play.output;

  const std::string infra_id = trimmed(
      run_command(podman(conf_, {"pod", "inspect", "--format", "{{.InfraContainerID}}", name_}))
          .output);
  const std::string infra_name = inspect("{{.Name}}", infra_id);
  infra_pid_ = inspect("{{.State.Pid}}", infra_id);
  ASSERT_FALSE(infra_name.empty());
  ASSERT_NE(infra_pid_, "0");
  // A name for the runtime's namespace, to send from it (and the netns_name label).
  ASSERT_TRUE(run_or_fail({"ip", "netns", "attach", name_, infra_pid_}));
  const std::string netns = std::to_string(netns_inode(name_));
  ASSERT_EQ(send_udp(name_, 0, "127.0.0.1", kDatagrams, 10), kDatagrams);

  const Labels info{
      {"netns", netns}, {"kind", "container"}, {"container", infra_name}, {"netns_name", name_}};
  const Labels lo{{"netns", netns}, {"device", "lo"}};
  const Series series = scrape_until(
      exporter,
      [&](const Series& s) {
        return count_where(s, "netif_rx_netns_info", info) == 1 &&
               sum_where(s, "netif_rx_packets_total", lo) >= 2 * kDatagrams;
      },
      20000);
  std::cout << "pod " << name_ << ", infra container " << infra_name << " (pid " << infra_pid_
            << "), netns " << netns << "\n";
  for (const auto& [key, value] : series) {
    if (key.find("netns=\"" + netns + "\"") != std::string::npos && value != 0) {
      std::cout << key << " " << value << "\n";
    }
  }
  EXPECT_EQ(count_where(series, "netif_rx_netns_info", info), 1) << exporter.log();
  EXPECT_EQ(count_where(series, "netif_rx_netns_info", {{"netns", netns}}), 1);
  EXPECT_EQ(sum_where(series, "netif_rx_packets_total", lo), 2 * kDatagrams);
  EXPECT_EQ(exporter.stop(), 0) << exporter.log();
}

}  // namespace
}  // namespace netif_rx::test
