#include "dpadmm/solver/loss.h"

#include "dpadmm/core/error.h"

namespace dpadmm {

LossKind ParseLossKind(const std::string& name, const std::string& field) {
  if (name == "logistic") return LossKind::kLogistic;
  if (name == "smooth_hinge") return LossKind::kSmoothHinge;
  throw InputError(field + ": unknown loss '" + name + "' (expected logistic or smooth_hinge)");
}

}  // namespace dpadmm
