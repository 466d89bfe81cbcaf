// SPDX-License-Identifier: Apache-2.0
// Internal to run/: validation with or without the data source's files (an Experiment
// built from in-memory data has none).
#pragma once

#include "dpadmm/run/run_spec.h"

namespace dpadmm {

// RunSpec::Validate() is ValidateSpec(spec, true).
void ValidateSpec(const RunSpec& spec, bool check_data_source);

}  // namespace dpadmm
