// SPDX-License-Identifier: Apache-2.0
// Elementary functions with the same bits on every platform (CPU, C library, WebAssembly).
//
// The C library's exp and log are not specified to the last bit, and one differing bit in a loss
// value changes a seeded trajectory a few rounds later. These functions are built from IEEE-754
// basic operations only, within 2 ulp of the correctly rounded result, and compiled inside the
// library with -ffp-contract=off. They are defined out of line on purpose: an inline definition
// in a public header would be compiled again with the consumer's flags (which may fuse
// multiply-adds), and the linker could then pick that copy for the library too.
#pragma once

#include <cstdint>

namespace dpadmm::math {

/// e^x.
[[nodiscard]] double Exp(double x);
/// Natural logarithm; NaN for x < 0, -inf at 0.
[[nodiscard]] double Log(double x);
/// log(1 + x), accurate for small x.
[[nodiscard]] double Log1p(double x);
/// e^x - 1, accurate for small x.
[[nodiscard]] double Expm1(double x);
/// base^n for an integer n >= 0 by repeated squaring.
[[nodiscard]] double PowInt(double base, std::int64_t n);
/// base^y for base > 0 (e^(y log base)); NaN for base < 0, and pow's values at 0 and inf.
[[nodiscard]] double Pow(double base, double y);

}  // namespace dpadmm::math
