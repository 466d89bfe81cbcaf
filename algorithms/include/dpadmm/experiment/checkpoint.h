// SPDX-License-Identifier: Apache-2.0
// Moved to dpadmm/persistence/checkpoint.h; this path is kept for existing code and will be removed
// in a later release.
#pragma once

#include "dpadmm/persistence/checkpoint.h"
