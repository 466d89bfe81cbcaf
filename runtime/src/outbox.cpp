// SPDX-License-Identifier: Apache-2.0
#include <stdexcept>

#include "dpadmm/runtime/node_program.h"

namespace dpadmm::runtime {

std::span<double> Outbox::Prepare(std::size_t n) {
  if (n > buffer_.size()) {
    throw std::length_error("Outbox::Prepare: message of " + std::to_string(n) +
                            " doubles exceeds MaxMessageSize " + std::to_string(buffer_.size()));
  }
  size_ = n;
  return {buffer_.data(), n};
}

}  // namespace dpadmm::runtime
