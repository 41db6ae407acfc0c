#include "util/build_info.h"

#include <gtest/gtest.h>

#include "web/landing_page.h"

namespace netif_rx {
namespace {

BuildInfo sample() {
  return BuildInfo{"1.2.3",
                   "0123456789abcdef",
                   "main",
                   "builder@host",
                   "20231114-22:13:20",
                   "gcc-12.2.0",
                   "linux",
                   "amd64",
                   "1.1"};
}

TEST(BuildInfo, VersionTextHasTheFieldsOfPrometheusBinaries) {
  EXPECT_EQ(version_text(sample()),
            "netif_rx_exporter, version 1.2.3 (branch: main, revision: 0123456789abcdef)\n"
            "  build user:       builder@host\n"
            "  build date:       20231114-22:13:20\n"
            "  toolchain:        gcc-12.2.0\n"
            "  libbpf version:   1.1\n"
            "  platform:         linux/amd64\n");
}

TEST(BuildInfo, LabelsOfBuildInfo) {
  const auto labels = build_info_labels(sample());
  const std::vector<std::pair<std::string, std::string>> expected{
      {"version", "1.2.3"},     {"revision", "0123456789abcdef"},
      {"branch", "main"},       {"toolchain", "gcc-12.2.0"},
      {"os", "linux"},          {"arch", "amd64"},
      {"libbpf_version", "1.1"}};
  EXPECT_EQ(labels, expected);
}

TEST(BuildInfo, ThisBinaryCarriesEveryFieldFromTheBuild) {
  const BuildInfo info = build_info();
  for (const std::string* field :
       {&info.version, &info.revision, &info.branch, &info.build_user, &info.build_date,
        &info.toolchain, &info.os, &info.arch, &info.libbpf_version}) {
    EXPECT_FALSE(field->empty());
  }
  EXPECT_EQ(info.build_date.size(), std::string("YYYYMMDD-HH:MM:SS").size()) << info.build_date;
  EXPECT_NE(info.build_user.find('@'), std::string::npos) << info.build_user;
}

TEST(LandingPage, ShowsTheVersionAndLinksTheMetrics) {
  BuildInfo info = sample();
  info.branch = "fix/<script>";
  const std::string page = landing_page("/metrics", info);
  EXPECT_NE(page.find("Version 1.2.3 (branch: fix/&lt;script&gt;, revision: 0123456789abcdef"),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("<a href=\"/metrics\">Metrics</a>"), std::string::npos) << page;
  EXPECT_EQ(page.find("<script>"), std::string::npos);
}

}  // namespace
}  // namespace netif_rx
