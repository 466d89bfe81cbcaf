// SPDX-License-Identifier: Apache-2.0
#include "consensus/consensus_admm.h"

#include <utility>

#include "consensus/admm_node.h"
#include "consensus/baseline_nodes.h"
#include "consensus/dvp_node.h"
#include "consensus/madmm_node.h"
#include "consensus/mradmm_node.h"
#include "consensus/private_mradmm_node.h"
#include "consensus/pvp_node.h"
#include "consensus/radmm_node.h"
#include "dpadmm/core/error.h"

namespace dpadmm {

bool IsPrivate(ConsensusVariant v, double alpha) {
  switch (v) {
    case ConsensusVariant::kDvp:
    case ConsensusVariant::kPvp:
    case ConsensusVariant::kPrivateMradmm:
    case ConsensusVariant::kLocal:
    case ConsensusVariant::kAverage: return true;
    case ConsensusVariant::kMadmm: return alpha > 0.0;
    default: return false;
  }
}

namespace {

std::unique_ptr<ConsensusNode> MakeVariantNode(int id, const Dataset& data, int degree,
                                               const Loss& loss, const NewtonOptions& newton,
                                               const ConsensusNodeParams& params,
                                               Eigen::VectorXd f0) {
  switch (params.variant) {
    case ConsensusVariant::kAdmm:
      return std::make_unique<AdmmNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kDvp:
      return std::make_unique<DvpNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kPvp:
      return std::make_unique<PvpNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kMadmm:
      return std::make_unique<MadmmNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kRadmm:
      return std::make_unique<RadmmNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kMradmm:
      return std::make_unique<MradmmNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kPrivateMradmm:
      return std::make_unique<PrivateMradmmNode>(id, data, degree, loss, newton, params,
                                                 std::move(f0));
    case ConsensusVariant::kLocal:
      return std::make_unique<LocalNode>(id, data, degree, loss, newton, params, std::move(f0));
    case ConsensusVariant::kAverage:
      return std::make_unique<AverageNode>(id, data, degree, loss, newton, params, std::move(f0));
  }
  throw InputError("MakeConsensusNode: unknown variant");
}

}  // namespace

std::unique_ptr<ConsensusNode> MakeConsensusNode(int id, const Dataset& data, int degree,
                                                 const Loss& loss, const NewtonOptions& newton,
                                                 const ConsensusNodeParams& params,
                                                 Eigen::VectorXd f0) {
  std::unique_ptr<ConsensusNode> node =
      MakeVariantNode(id, data, degree, loss, newton, params, std::move(f0));
  if (params.gossip_from > 0) node->SetGossipTail(params.gossip_from, params.neighbour_degrees);
  return node;
}

}  // namespace dpadmm
