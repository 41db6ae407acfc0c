#include "probe/netns_salt.h"

#include <bpf/btf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <memory>

namespace netif_rx {
namespace {

struct BtfDeleter {
  void operator()(btf* handle) const { btf__free(handle); }
};

// A struct net as a kernel's BTF describes it, with the fields asked for.
struct FakeKernel {
  std::unique_ptr<btf, BtfDeleter> types{btf__new_empty()};
  int u32 = btf__add_int(types.get(), "unsigned int", 4, 0);
  int u64 = btf__add_typedef(types.get(), "u64",
                             btf__add_int(types.get(), "long long unsigned int", 8, 0));
  int atomic64 = make_atomic64();

  int make_atomic64() {
    const int s64 = btf__add_int(types.get(), "long long int", 8, BTF_INT_SIGNED);
    const int counter = btf__add_struct(types.get(), "", 8);
    btf__add_field(types.get(), "counter", s64, 0, 0);
    return btf__add_typedef(types.get(), "atomic64_t", counter);
  }

  void add_net(bool hash_mix, int cookie_type) {
    btf__add_struct(types.get(), "net", 16);
    if (hash_mix) btf__add_field(types.get(), "hash_mix", u32, 0, 0);
    if (cookie_type > 0) btf__add_field(types.get(), "net_cookie", cookie_type, 64, 0);
  }
};

TEST(NetnsSalt, APlainU64CookieIsTheSalt) {
  FakeKernel kernel;  // Linux >= 5.12
  kernel.add_net(true, kernel.u64);
  EXPECT_EQ(netns_salt_support(*kernel.types).kind, NetnsSaltSupport::Kind::net_cookie);
}

TEST(NetnsSalt, AnAtomicCookieAssignedLazilyIsNotHashMixIs) {
  FakeKernel kernel;  // Linux 5.7-5.11
  kernel.add_net(true, kernel.atomic64);
  EXPECT_EQ(netns_salt_support(*kernel.types).kind, NetnsSaltSupport::Kind::hash_mix);
}

TEST(NetnsSalt, NeitherFieldIsMissing) {
  FakeKernel kernel;  // Linux < 5.1
  kernel.add_net(false, 0);
  EXPECT_EQ(netns_salt_support(*kernel.types).kind, NetnsSaltSupport::Kind::missing);
}

// Every kernel the exporter runs on (>= 5.10) has one of them.
TEST(NetnsSalt, TheRunningKernelHasOne) {
  const std::string btf = "/sys/kernel/btf/vmlinux";
  ASSERT_EQ(::access(btf.c_str(), R_OK), 0) << "this test needs the kernel's BTF at " << btf;
  const NetnsSaltSupport support = netns_salt_support(btf);
  EXPECT_TRUE(support.kind == NetnsSaltSupport::Kind::net_cookie ||
              support.kind == NetnsSaltSupport::Kind::hash_mix)
      << support.detail;
}

TEST(NetnsSalt, AnUnreadableBtfIsUnknownWithTheReason) {
  const NetnsSaltSupport support = netns_salt_support("/nonexistent/vmlinux");
  EXPECT_EQ(support.kind, NetnsSaltSupport::Kind::unknown);
  EXPECT_NE(support.detail.find("/nonexistent/vmlinux"), std::string::npos) << support.detail;
}

}  // namespace
}  // namespace netif_rx
