#include "web/landing_page.h"

namespace netif_rx {
namespace {

std::string html_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string landing_page(const std::string& telemetry_path, const BuildInfo& info) {
  return "<!DOCTYPE html>\n<html><head><title>netif_rx_exporter</title></head><body>\n"
         "<h1>netif_rx_exporter</h1>\n"
         "<p>Received packets per network device and CPU, counted by an eBPF probe on "
         "net:netif_receive_skb.</p>\n"
         "<p>Version " +
         html_escaped(info.version) + " (branch: " + html_escaped(info.branch) +
         ", revision: " + html_escaped(info.revision) + ", built " + html_escaped(info.build_date) +
         " with " + html_escaped(info.toolchain) + " for " +
         html_escaped(info.os + "/" + info.arch) +
         ")</p>\n<ul>\n"
         "<li><a href=\"" +
         html_escaped(telemetry_path) +
         "\">Metrics</a></li>\n"
         "<li><a href=\"/-/healthy\">Health</a></li>\n"
         "<li><a href=\"/-/ready\">Readiness</a></li>\n"
         "</ul>\n</body></html>\n";
}

}  // namespace netif_rx
