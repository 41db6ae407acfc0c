#include "top/http_fetch.h"

#include <openssl/evp.h>

#include <vector>

#include "top/http_connection.h"

namespace netif_rx {

std::string basic_authorization(const std::string& user, const std::string& password) {
  const std::string plain = user + ":" + password;
  std::vector<unsigned char> encoded(4 * ((plain.size() + 2) / 3) + 1);
  const int length =
      EVP_EncodeBlock(encoded.data(), reinterpret_cast<const unsigned char*>(plain.data()),
                      static_cast<int>(plain.size()));
  return "Basic " + std::string(reinterpret_cast<const char*>(encoded.data()),
                                static_cast<std::size_t>(length));
}

HttpResponse http_get(const std::string& url_text, const HttpClientOptions& options) {
  const auto url = parse_http_url(url_text);
  if (!url) {
    throw HttpFetchError("'" + url_text + "' is not an http[s]://host[:port]/path URL");
  }
  std::string request = "GET " + url->target + " HTTP/1.1\r\nHost: " + url_endpoint(*url) +
                        "\r\nAccept: text/plain;version=0.0.4\r\n"
                        "User-Agent: netif_rx_exporter-top\r\nConnection: close\r\n";
  if (options.user) {
    request += "Authorization: " + basic_authorization(*options.user, options.password) + "\r\n";
  }
  request += "\r\n";

  HttpConnection connection(*url, options.ca_file, options.timeout);
  connection.send_all(request);
  std::string raw;
  std::vector<char> buffer(16384);
  while (true) {
    const std::size_t received = connection.receive(buffer.data(), buffer.size());
    if (received == 0) break;
    raw.append(buffer.data(), received);
    if (http_response_complete(raw, options.limits)) break;
  }
  return parse_http_response(raw, options.limits);
}

}  // namespace netif_rx
