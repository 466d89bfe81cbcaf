// SPDX-License-Identifier: Apache-2.0
// Private helpers of the network engine's option checks (network_config.cpp).
#pragma once

#include <string>

namespace dpadmm::runtime::detail {

struct HostPort {
  std::string host;  // without brackets
  int port = 0;      // 0: not a valid host:port
};
// "host:port" or "[v6]:port"; port 1-65535. port == 0 in the result when malformed.
HostPort SplitHostPort(const std::string& address);

}  // namespace dpadmm::runtime::detail
