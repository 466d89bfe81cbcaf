// SPDX-License-Identifier: Apache-2.0
// TEST-ONLY entry to the privacy audit (dpadmm/tools/audit.h): the same audit with hooks
// that break the mechanism on purpose, so that a test can check the audit catches it.
//
// How it is kept out of production: this is a private header of the algorithms (not under
// include/, not installed); the spec, the JSON reader, the `dpadmm audit` command and the wasm
// bindings only call RunAudit, which passes the default hooks; no flag or field maps to them.
// The weakening itself (privacy/noise_weakening.h) is a thread-local scale that only a scope
// object sets, read by each Release when it is constructed.
#pragma once

#include "dpadmm/tools/audit.h"

namespace dpadmm {

struct AuditTestHooks {
  // Multiplies the scale of every noise drawn through a Release of the audited runs (both
  // sides, every node): 0.1 = "noise divided by 10". Has no effect on PDML's randomized
  // response (drawn outside the Release, from the users' own keys).
  double noise_scale = 1.0;
};

AuditResult RunAuditWithTestHooks(const AuditSetup& setup, const AuditOptions& options,
                                  const AuditTestHooks& hooks);

}  // namespace dpadmm
