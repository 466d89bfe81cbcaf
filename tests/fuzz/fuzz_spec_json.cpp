// SPDX-License-Identifier: Apache-2.0
// ApplySpecJson on arbitrary bytes. Properties: a rejected input leaves the spec unchanged (the
// header's contract); an accepted spec round-trips through SpecToJson; Validate() either
// accepts or throws InputError.
#include "dpadmm/run/run_spec.h"
#include "dpadmm/run/spec_json.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string text(reinterpret_cast<const char*>(data), size);
  RunSpec spec;
  const std::string before = SpecToJson(spec);
  try {
    ApplySpecJson(text, "fuzz.json", spec);
  } catch (const InputError&) {
    if (SpecToJson(spec) != before) fuzz::Fail("a rejected JSON spec changed the spec");
    return 0;
  }
  const std::string written = SpecToJson(spec);
  RunSpec reread;
  try {
    ApplySpecJson(written, "written.json", reread);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n%s\n", written.c_str(), e.what());
    fuzz::Fail("SpecToJson output is rejected by ApplySpecJson");
  }
  if (SpecToJson(reread) != written) fuzz::Fail("spec JSON does not round-trip");
  fuzz::ExpectOnlyInputError([&] { spec.Validate(); });
  return 0;
}
