// SPDX-License-Identifier: Apache-2.0
// Modified R-ADMM, 003 Algorithm 2, eqs. (14)-(17): R-ADMM with the node-private increasing
// penalty eta_i(2k-1) = eta q1^k, also used in round 2k.
#pragma once

#include "consensus/radmm_node.h"

namespace dpadmm {

class MradmmNode : public RadmmNode {
 public:
  using RadmmNode::RadmmNode;
  // 003: eta_i(2k-1) = eta q1^k, kept in round 2k.
  double Penalty(std::int64_t round) const override;
};

}  // namespace dpadmm
