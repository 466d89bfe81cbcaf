// The wasm build's log1p and expm1: glibc's generic algorithms (see glibc_math.h), replacing
// musl's, so that wasm and native Linux builds compute the same bits.
#include "glibc_math.h"

extern "C" double log1p(double x) { return dpadmm::wasm_math::Log1p(x); }
extern "C" double expm1(double x) { return dpadmm::wasm_math::Expm1(x); }
