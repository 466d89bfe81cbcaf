// SPDX-License-Identifier: Apache-2.0
// Moved to dpadmm/run/run_spec.h; this path is kept for existing code and will be removed in a
// later release.
#pragma once

#include "dpadmm/run/run_spec.h"
