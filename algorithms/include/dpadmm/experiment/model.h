// SPDX-License-Identifier: Apache-2.0
// Moved to dpadmm/persistence/model.h; this path is kept for existing code and will be removed in a
// later release.
#pragma once

#include "dpadmm/persistence/model.h"
