// ApplySharingSpecJson on arbitrary bytes. Properties: an accepted spec round-trips through
// SharingSpecToJson; Validate() either accepts or throws InputError.
#include "dpadmm/sharing/sharing.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dpadmm;
  const std::string text(reinterpret_cast<const char*>(data), size);
  SharingSpec spec;
  try {
    ApplySharingSpecJson(text, "fuzz.json", spec);
  } catch (const InputError&) {
    return 0;
  }
  const std::string written = SharingSpecToJson(spec);
  SharingSpec reread;
  try {
    ApplySharingSpecJson(written, "written.json", reread);
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s\n%s\n", written.c_str(), e.what());
    fuzz::Fail("SharingSpecToJson output is rejected by ApplySharingSpecJson");
  }
  if (SharingSpecToJson(reread) != written) fuzz::Fail("sharing spec JSON does not round-trip");
  fuzz::ExpectOnlyInputError([&] { spec.Validate(); });
  return 0;
}
