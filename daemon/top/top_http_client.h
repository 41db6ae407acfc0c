// The HTTP client settings of `top --from`, from its flags: the CA file, the
// limits, the timeout, and the basic-auth password, read from a file or the
// environment (never from the command line, where `ps` shows it).
#pragma once

#include "top/http_fetch.h"
#include "top/top_options.h"

namespace netif_rx {

inline constexpr const char* kTopPasswordEnv = "NETIF_RX_TOP_PASSWORD";

// `password_env` is the value of $NETIF_RX_TOP_PASSWORD (or null). Throws
// CliError with one line when --from.user has no password, or the password
// file can't be read.
HttpClientOptions top_http_client_options(const TopFromOptions& from, const char* password_env);

}  // namespace netif_rx
