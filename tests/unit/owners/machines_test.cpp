#include "owners/machines.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "fake_tree.h"

namespace netif_rx {
namespace {

constexpr std::uint32_t kHost = 4026531840;

TEST(Machines, ParsesNameAndLeader) {
  // as systemd 252's machined writes it
  const MachineFile web = parse_machine_file(
      "# This is private data. Do not parse.\nNAME=web\nSCOPE=machine-web.scope\n"
      "SERVICE=nspawn\nROOT=/var/lib/machines/web\nID=0123456789abcdef0123456789abcdef\n"
      "LEADER=4242\nCLASS=container\nREALTIME=1795604612000000\nNETIF=7\n");
  EXPECT_EQ(web.name, "web");
  EXPECT_EQ(web.leader, 4242);
  EXPECT_EQ(parse_machine_file("NAME=x\nLEADER=12ab\n").leader, 0);
  EXPECT_EQ(parse_machine_file("NAME=x\nLEADER=-1\n").leader, 0);
  EXPECT_EQ(parse_machine_file("NAME=x\nLEADER=99999999999999999999\n").leader, 0);
  EXPECT_EQ(parse_machine_file("").name, "");
}

TEST(Machines, ALeadersNamespaceIsTheMachines) {
  FakeTree tree;
  tree.process(4242, 4026532177, "0::/machine.slice/machine-web.scope/payload\n");
  tree.process(5151, kHost, "0::/machine.slice/machine-vm.scope\n");
  tree.write("machines/web", "NAME=web\nLEADER=4242\nCLASS=container\n");
  tree.write("machines/vm", "NAME=vm\nLEADER=5151\nCLASS=vm\n");             // host's: nothing
  tree.write("machines/gone", "NAME=gone\nLEADER=6161\nCLASS=container\n");  // no process
  tree.write("machines/noleader", "NAME=noleader\nCLASS=container\n");
  std::filesystem::create_symlink("web", tree.path("machines/unit:machine-web.scope"));
  NetnsIds ids;  // a fake tree's links are not namespace files: no id
  const auto owners = scan_machines(tree.path("machines"), tree.path("proc"), kHost, ids);
  ASSERT_EQ(owners.size(), 1U);
  EXPECT_EQ(owners.at(4026532177), (NetnsOwner{OwnerKind::container, "", "", "", "web", ""}));
  EXPECT_TRUE(scan_machines(tree.path("absent"), tree.path("proc"), kHost, ids).empty());
  EXPECT_EQ(ids.seen(4026532177), NetnsIds::Seen::none);
}

}  // namespace
}  // namespace netif_rx
