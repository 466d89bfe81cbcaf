// SPDX-License-Identifier: Apache-2.0
// The out-of-line, public versions of the portable elementary functions (see
// dpadmm/core/portable_math.h for why they are not inline).
#include "dpadmm/core/portable_math.h"

#include "core/portable_math_impl.h"

namespace dpadmm::math {

double Exp(double x) { return impl::Exp(x); }
double Log(double x) { return impl::Log(x); }
double Log1p(double x) { return impl::Log1p(x); }
double Expm1(double x) { return impl::Expm1(x); }
double PowInt(double base, std::int64_t n) { return impl::PowInt(base, n); }
double Pow(double base, double y) { return impl::Pow(base, y); }

}  // namespace dpadmm::math
