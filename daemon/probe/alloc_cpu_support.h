// Whether the running kernel's skbs say which CPU built them (struct
// sk_buff's alloc_cpu, Linux 5.19): the probe counts steered packets only
// then (bpf_core_field_exists), and the daemon serves the steering families
// only then.
#pragma once

#include <optional>
#include <string>

namespace netif_rx {

// True when the BTF at `btf_path` has sk_buff's alloc_cpu; nullopt, with
// `error` set, when it cannot be read.
std::optional<bool> skb_has_alloc_cpu(const std::string& btf_path, std::string& error);

}  // namespace netif_rx
