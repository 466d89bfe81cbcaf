// SPDX-License-Identifier: Apache-2.0
// Special functions of the accountant, built only from IEEE-754 basic operations, sqrt and the
// portable exp/log (core/portable_math.h), so that accounting values have the same bits natively
// and in WebAssembly. Private to privacy/ (pld.cpp, rdp.cpp, accountant.cpp).
#pragma once

#include <cstdint>

namespace dpadmm::pld_detail {

/// Complementary error function erfc(x) = 2/sqrt(pi) int_x^inf e^{-t^2} dt, relative error
/// below 1e-13 over the range where the result is a normal double (tested against the C
/// library). For |x| < 1.5 it is 1 - erf(x) with erf's Maclaurin series, beyond the continued
/// fraction of Laplace (Abramowitz and Stegun 7.1.14), evaluated bottom-up at a fixed depth.
[[nodiscard]] double Erfc(double x);

/// Standard normal distribution function Phi(x) = erfc(-x / sqrt 2) / 2.
[[nodiscard]] double NormalCdf(double x);

/// log Phi(x), finite for every finite x (Phi underflows below x = -38). For x >= -30 it is
/// log(NormalCdf(x)); below, the asymptotic series of Mills' ratio, Phi(x) = phi(x)/|x| (1 -
/// x^-2 + 3 x^-4 - 15 x^-6 + 105 x^-8 - 945 x^-10 + ...), cut after a negative term so that the
/// result is a LOWER bound (relative error below 1e-13 there).
[[nodiscard]] double LogNormalCdf(double x);

/// log C(n, k) for 0 <= k <= n, as a sum of logarithms (deterministic, no lgamma).
[[nodiscard]] double LogBinomial(std::int64_t n, std::int64_t k);

/// log(e^a + e^b) without overflow.
[[nodiscard]] double LogAddExp(double a, double b);

}  // namespace dpadmm::pld_detail
