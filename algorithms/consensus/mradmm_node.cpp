// SPDX-License-Identifier: Apache-2.0
#include "consensus/mradmm_node.h"

#include "dpadmm/privacy/accounting.h"

namespace dpadmm {

double MradmmNode::Penalty(std::int64_t round) const {
  return GeometricSchedule(params_.eta * params_.q1, params_.q1, (round + 1) / 2);
}

}  // namespace dpadmm
