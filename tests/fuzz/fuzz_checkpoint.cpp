// SPDX-License-Identifier: Apache-2.0
// The checkpoint loader on arbitrary bytes: ParseCheckpoint (with and without its hash check, so
// that mutations reach the structure behind the hash), the spec comparison, and each node state
// loaded into a consensus node program, an ADMM sharing party and coordinator of the seed
// corpus's sizes (2 features, 7 rows; a sharing party: 1 feature; the seeds:
// tests/fuzz/README.md). InputError is the only accepted rejection. Properties: a
// parsed file serialises to bytes that parse to the same contents; a spec never differs from
// itself.
#include <memory>

#include "consensus/consensus_admm.h"
#include "dpadmm/persistence/checkpoint.h"
#include "fuzz_common.h"
#include "persistence/checkpoint.h"
#include "sharing/programs.h"

namespace {

std::unique_ptr<dpadmm::ConsensusNode> MakeNode() {
  using namespace dpadmm;
  Dataset data;
  DenseRows x(7, 2);
  for (int r = 0; r < 7; ++r) {
    x(r, 0) = 0.1 * r;
    x(r, 1) = 0.05 * (7 - r);
  }
  data.x = x;
  data.y = Eigen::VectorXd::Ones(7);
  data.y[3] = -1.0;
  ConsensusNodeParams p;
  p.num_nodes = 2;
  p.noise_seed = 1;
  return MakeConsensusNode(0, data, 1, Loss{}, NewtonOptions{}, p, Eigen::VectorXd::Zero(2));
}

// A sharing party (7 rows, 1 feature, private: it has a release with a noise stream) and the
// coordinator (7 labels), with the data they keep references to.
struct SharingNodes {
  dpadmm::Dataset block;
  Eigen::VectorXd labels;
  std::unique_ptr<dpadmm::sharing::XUpdate> xupdate;
  std::unique_ptr<dpadmm::sharing::SharingParty> party;
  std::unique_ptr<dpadmm::sharing::SharingCoordinator> coordinator;
  SharingNodes() {
    using namespace dpadmm;
    DenseRows x(7, 1);
    for (int r = 0; r < 7; ++r) x(r, 0) = 0.1 * r;
    block.x = x;
    labels = Eigen::VectorXd::Ones(7);
    labels[3] = -1.0;
    xupdate = std::make_unique<sharing::XUpdate>(sharing::Gram(block), 1e-4, 5e-4, 10.0);
    sharing::PartyParams p;
    p.sigma = 1.0;
    p.epsilon = 0.1;
    p.noise_seed = 1;
    party = std::make_unique<sharing::SharingParty>(block, *xupdate, nullptr, p);
    coordinator =
        std::make_unique<sharing::SharingCoordinator>(labels, sharing::CoordinatorParams{});
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz::ExpectOnlyInputError([&] { ParseCheckpoint(bytes, "fuzz.ckpt"); });
  CheckpointContents c;
  try {
    c = ParseCheckpoint(bytes, "fuzz.ckpt", /*verify_hash=*/false);
  } catch (const InputError&) {
    return 0;
  }
  const std::string written = SerializeCheckpoint(c);
  CheckpointContents again;
  try {
    again = ParseCheckpoint(written, "written.ckpt");
  } catch (const InputError&) {
    fuzz::Fail("a serialised checkpoint is rejected");
  }
  if (SerializeCheckpoint(again) != written) fuzz::Fail("checkpoint does not round-trip");
  try {
    if (!SpecDifferences(c.spec_json, c.spec_json).empty())
      fuzz::Fail("a spec differs from itself");
  } catch (const InputError&) {
  } catch (const std::exception&) {
    // The saved spec is not valid JSON text of an object: SpecDifferences throws InputError for
    // that; anything else escaping is a finding.
    fuzz::Fail("SpecDifferences threw something other than InputError");
  }
  static const std::unique_ptr<ConsensusNode> node = MakeNode();
  static SharingNodes sharing_nodes;
  for (const std::string& state : c.node_states) {
    for (Checkpointable* program : std::initializer_list<Checkpointable*>{
             node.get(), sharing_nodes.party.get(), sharing_nodes.coordinator.get()}) {
      fuzz::ExpectOnlyInputError([&] {
        StateReader in(state, "fuzz.ckpt, node 0");
        program->LoadState(in);
      });
    }
  }
  return 0;
}
