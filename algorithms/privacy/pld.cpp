// SPDX-License-Identifier: Apache-2.0
#include "dpadmm/privacy/pld.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <sstream>
#include <utility>

#include "core/field_error.h"
#include "dpadmm/core/error.h"
#include "dpadmm/core/portable_math.h"
#include "privacy/pld_math.h"

namespace dpadmm {
namespace {

constexpr double kUnitRoundoff = 0x1p-53;
// Grid points one distribution may hold (a Gaussian of mu = sensitivity / sigma needs about
// 16 mu / h of them); beyond this the caller must choose a coarser grid.
constexpr std::int64_t kMaxPoints = std::int64_t{1} << 27;

using detail::Require;

void CheckOptions(const PldOptions& o, const char* fn) {
  Require(std::isfinite(o.value_discretization) && o.value_discretization > 0.0, fn,
          "value_discretization must be finite and > 0", o.value_discretization);
  Require(o.tail_mass_truncation >= 0.0 && o.tail_mass_truncation < 0.01, fn,
          "tail_mass_truncation must be in [0, 0.01)", o.tail_mass_truncation);
}

// Loss value of grid index i. Every place uses this one expression, so a value rounded up to
// index i is compared with exactly the double that stands for it.
double GridValue(std::int64_t i, double h) { return static_cast<double>(i) * h; }

// Smallest index i with GridValue(i) >= x: x rounded UP to the grid.
std::int64_t CeilIndex(double x, double h, const char* fn) {
  const double q = std::ceil(x / h);
  Require(std::fabs(q) < 0x1p52, fn, "loss value too large for the grid", x);
  auto i = static_cast<std::int64_t>(q);
  while (GridValue(i, h) < x) ++i;
  while (GridValue(i - 1, h) >= x) --i;
  return i;
}

// A distribution on grid indices i_lo..i_hi must fit kMaxPoints.
void RequireGridPoints(std::int64_t i_lo, std::int64_t i_hi, const char* fn) {
  Require(i_hi - i_lo < kMaxPoints, fn,
          "the loss distribution needs too many grid points; use a coarser value_discretization",
          static_cast<double>(i_hi - i_lo));
}

// Places an atom of mass p at loss l on the grid by "connecting the dots" (Doroshenko, Ghazi,
// Kamath, Kumar and Manurangsi 2022): with b the grid point l rounds up to and a the one below,
// the mass splits into p_a at a and p_b = p - p_a at b such that both P-mass and Q-mass (p e^-l)
// are kept: p_a = p (e^{b-l} - 1) / (e^{b-a} - 1). For eps <= a the hockey-stick term is linear
// in (p, p e^-l) and unchanged; for eps in (a, b) the new term is the chord, in e^eps, of the
// old one, which is convex in e^eps, so it lies above it; for eps >= b both are 0. So the split
// pair dominates the atom's pair (delta(eps) never smaller), and it is itself dominated by
// rounding the whole atom up to b (the old discretisation): composed figures lie between the
// exact ones and those of rounding up, whose error bound (k h for k releases) therefore holds.
// p_a is rounded down by 2^-48 relative (more than the few ulps of its evaluation), which only
// moves mass up to b (pessimistic).
void AddAtomConnectingDots(std::vector<double>& probs, std::int64_t i_lo, double l, double p,
                           double h, const char* fn) {
  const std::int64_t b = CeilIndex(l, h, fn);
  const double up = GridValue(b, h) - l;  // in [0, h); exact (Sterbenz) unless l is near 0
  const double cell = GridValue(b, h) - GridValue(b - 1, h);
  double p_a = up > 0.0 ? p * (math::Expm1(up) / math::Expm1(cell)) * (1.0 - 0x1p-48) : 0.0;
  p_a = std::min(std::max(p_a, 0.0), p);
  probs[static_cast<std::size_t>(b - i_lo)] += p - p_a;
  if (p_a > 0.0) probs[static_cast<std::size_t>(b - 1 - i_lo)] += p_a;
}

// int_0^w e^{x t} dt (exact at x = 0; expm1 keeps it accurate for small x w).
double IntegralOfExp(double x, double w) { return x == 0.0 ? w : math::Expm1(x * w) / x; }

// A continuous piece (u, v] of one grid cell, P-mass p, whose P-density is proportional to e^{c l}
// on it, or is smaller than that in likelihood ratio (density / e^{c l} nonincreasing: the
// Gaussian's, with c its log-density's slope at u). Placed as an atom at u + t with
// e^{-t} = E[e^{-(l - u)} | piece] for the density e^{c l}, i.e. t = ln(int_0^w e^{ct} dt /
// int_0^w e^{(c-1)t} dt), w = v - u: that atom has the piece's P-mass and its Q-mass
// (int e^{-l} dP), or, for a density smaller in likelihood ratio, no more Q-mass (it is
// stochastically larger, and e^{-l} decreases). AddAtomConnectingDots then splits it between the
// cell's two grid points keeping both masses. The split is the extreme point of the convex order
// among distributions on the cell with those masses: the hockey-stick term (1 - e^{eps} x)_+ is
// convex in x = e^{-l}, so its expectation can only grow (Jensen), and less Q-mass at the same
// P-mass only moves mass up. So the pair dominates the piece's, and is dominated by rounding the
// piece up to the cell's top (the k h bound holds). The error is second order in h where
// rounding up's is first order: a coarser grid gives the same figures. t is rounded up by
// 1e-9 w + 8 u (|u| + |v|) (more than its evaluation error, about u in absolute terms: B - A is
// about w^2 / 2, each of A and B within a few ulps of w), which only moves mass up.
void AddPieceConnectingDots(std::vector<double>& probs, std::int64_t i_lo, double u, double v,
                            double c, double p, double h, const char* fn) {
  if (!(p > 0.0)) return;
  const double w = v - u;
  double t = 0.0;
  if (w > 0.0) {
    const double a = IntegralOfExp(c - 1.0, w);
    const double b = IntegralOfExp(c, w);
    t = math::Log1p((b - a) / a);
    // |c| w beyond about 709 overflows both integrals (a Gaussian far narrower than a cell with
    // tail_mass_truncation 0): the piece then goes to v, i.e. rounds up (pessimistic).
    if (!std::isfinite(t)) t = w;
    t = std::min(std::max(t, 0.0), w) + 1e-9 * w +
        8.0 * kUnitRoundoff * (std::fabs(u) + std::fabs(v));
  }
  AddAtomConnectingDots(probs, i_lo, std::min(u + t, v), p, h, fn);
}

// f[m] = 1 - e^{-m h} and g[m] = e^{-m h}, m = 0..n, for the inversion of delta(eps): kept per
// thread for the last h and grown on demand (each entry depends only on m and h, so reusing
// them changes no bit; one pair of exponentials per grid point once, not per query).
struct ExpTables {
  double h = 0.0;
  std::vector<double> f, g;
};

const ExpTables& ExpTablesFor(double h, std::size_t n) {
  thread_local ExpTables t;
  if (t.h != h) {
    t.h = h;
    t.f.clear();
    t.g.clear();
  }
  for (std::size_t m = t.f.size(); m <= n; ++m) {
    const double x = -static_cast<double>(m) * h;
    t.f.push_back(-math::Expm1(x));
    t.g.push_back(math::Exp(x));
  }
  return t;
}

// Builds a PLD from a distribution function given as F(x) = P(L <= x) and S(x) = P(L > x) (S
// given separately so that upper-tail masses do not suffer from cancellation in 1 - F; F is
// evaluated below `median`, S from there on, one evaluation per grid point). Losses in
// [lo, hi] are kept; mass <= lo goes to the lowest point, mass > hi to +inf.
template <class Cdf, class Sf>
std::pair<std::int64_t, std::vector<double>> Discretise(double lo, double hi, double median,
                                                        double h, Cdf cdf, Sf sf,
                                                        double* infinity_mass, const char* fn) {
  const std::int64_t i_lo = CeilIndex(lo, h, fn);
  const std::int64_t i_hi = std::max(i_lo, CeilIndex(hi, h, fn));
  RequireGridPoints(i_lo, i_hi, fn);
  std::vector<double> probs(static_cast<std::size_t>(i_hi - i_lo + 1));
  // Cell i is (GridValue(i-1), GridValue(i)]; its mass is a difference of F below the median,
  // of S above, and 1 - F - S for the cell that holds the median.
  double x = GridValue(i_lo, h);
  bool below = x < median;
  double prev = below ? cdf(x) : sf(x);
  probs[0] = below ? prev : 1.0 - prev;
  for (std::int64_t i = i_lo + 1; i <= i_hi; ++i) {
    x = GridValue(i, h);
    double mass = 0.0;
    if (x < median) {
      const double c = cdf(x);
      mass = c - prev;
      prev = c;
    } else if (below) {
      const double s = sf(x);
      mass = 1.0 - prev - s;
      prev = s;
      below = false;
    } else {
      const double s = sf(x);
      mass = prev - s;
      prev = s;
    }
    probs[static_cast<std::size_t>(i - i_lo)] = std::max(mass, 0.0);
  }
  *infinity_mass = below ? 1.0 - prev : prev;
  return {i_lo, std::move(probs)};
}

// --- Radix-2 FFT (Cooley-Tukey, iterative, decimation in time) --------------------------------
// Twiddles cos(2 pi k / N), sin(2 pi k / N), k < N/2, from basic operations and sqrt only (the
// C library's sin and cos are not bit-reproducible): the primitive roots of order 2^s by the
// half-angle formulas cos(t/2) = sqrt((1 + cos t)/2), sin(t/2) = sin t / (2 cos(t/2)) from
// order 4, and entry k as the product of the roots of k's set bits (at most log2 N factors, so
// the error is O(log2(N) u) as in Higham's analysis).
struct Twiddles {
  std::vector<double> c, s;
};

Twiddles MakeTwiddles(std::size_t n) {
  Twiddles t;
  const std::size_t half = n / 2;
  t.c.assign(std::max<std::size_t>(half, 1), 1.0);
  t.s.assign(std::max<std::size_t>(half, 1), 0.0);
  if (n < 4) return t;  // n = 2: only k = 0
  int log2n = 0;
  while ((std::size_t{1} << log2n) < n) ++log2n;
  // root_c[s], root_s[s]: cos and sin of 2 pi / 2^s.
  std::vector<double> root_c(static_cast<std::size_t>(log2n + 1)), root_s(root_c.size());
  root_c[2] = 0.0;
  root_s[2] = 1.0;
  for (int s = 3; s <= log2n; ++s) {
    const double c = std::sqrt(0.5 * (1.0 + root_c[static_cast<std::size_t>(s - 1)]));
    root_c[static_cast<std::size_t>(s)] = c;
    root_s[static_cast<std::size_t>(s)] = root_s[static_cast<std::size_t>(s - 1)] / (2.0 * c);
  }
  for (int j = 0; (std::size_t{1} << (j + 1)) <= half; ++j) {
    const std::size_t step = std::size_t{1} << j;
    // Angle 2 pi 2^j / N = 2 pi / 2^(log2n - j).
    const double rc = root_c[static_cast<std::size_t>(log2n - j)];
    const double rs = root_s[static_cast<std::size_t>(log2n - j)];
    for (std::size_t k = 0; k < step; ++k) {
      t.c[k + step] = t.c[k] * rc - t.s[k] * rs;
      t.s[k + step] = t.s[k] * rc + t.c[k] * rs;
    }
  }
  return t;
}

// Stage twiddles cos/sin(2 pi k / len), k < len/2, copied contiguous (the full table is read
// with stride N/len; a strided read per butterfly would miss the cache for large N).
void StageTwiddles(const Twiddles& tw, std::size_t n, std::size_t len, std::vector<double>& c,
                   std::vector<double>& s) {
  const std::size_t half = len / 2;
  const std::size_t stride = n / len;
  c.resize(half);
  s.resize(half);
  for (std::size_t k = 0; k < half; ++k) {
    c[k] = tw.c[k * stride];
    s[k] = tw.s[k * stride];
  }
}

// Forward transform X_k = sum_j x_j e^{-2 pi i jk/N} by decimation in frequency (Gentleman-Sande):
// natural order in, BIT-REVERSED order out, so that no permutation pass is needed.
void FftForwardToBitReversed(std::vector<double>& re, std::vector<double>& im, const Twiddles& tw) {
  const std::size_t n = re.size();
  std::vector<double> wc, ws;
  for (std::size_t len = n; len >= 2; len >>= 1) {
    const std::size_t half = len / 2;
    StageTwiddles(tw, n, len, wc, ws);
    for (std::size_t start = 0; start < n; start += len) {
      double* ar = re.data() + start;
      double* ai = im.data() + start;
      double* br = ar + half;
      double* bi = ai + half;
      for (std::size_t k = 0; k < half; ++k) {
        const double dr = ar[k] - br[k];
        const double di = ai[k] - bi[k];
        ar[k] += br[k];
        ai[k] += bi[k];
        // (dr + i di) e^{-i t} = (dr c + di s) + i (di c - dr s)
        br[k] = dr * wc[k] + di * ws[k];
        bi[k] = di * wc[k] - dr * ws[k];
      }
    }
  }
}

// Inverse transform x_j = sum_k X_k e^{+2 pi i jk/N} (unnormalised) by decimation in time:
// BIT-REVERSED order in, natural order out.
void FftInverseFromBitReversed(std::vector<double>& re, std::vector<double>& im,
                               const Twiddles& tw) {
  const std::size_t n = re.size();
  std::vector<double> wc, ws;
  for (std::size_t len = 2; len <= n; len <<= 1) {
    const std::size_t half = len / 2;
    StageTwiddles(tw, n, len, wc, ws);
    for (std::size_t start = 0; start < n; start += len) {
      double* ar = re.data() + start;
      double* ai = im.data() + start;
      double* br = ar + half;
      double* bi = ai + half;
      for (std::size_t k = 0; k < half; ++k) {
        // t = b e^{+i t} = (br c - bi s) + i (br s + bi c)
        const double tr = br[k] * wc[k] - bi[k] * ws[k];
        const double ti = br[k] * ws[k] + bi[k] * wc[k];
        br[k] = ar[k] - tr;
        bi[k] = ai[k] - ti;
        ar[k] += tr;
        ai[k] += ti;
      }
    }
  }
}

double Norm2(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// The power of two the FFT convolution of out points uses, and its log2.
std::size_t FftSize(std::size_t out, int* log2n) {
  std::size_t size = 1;
  *log2n = 0;
  while (size < out) {
    size <<= 1;
    ++*log2n;
  }
  return size;
}

// The FFT's cost in the units of a direct convolution's multiply-adds (Convolve's choice).
double FftCost(std::size_t size, int log2n) {
  return 12.0 * static_cast<double>(size) * std::max(log2n, 1);
}

// Linear convolution of two nonnegative sequences into c (resized; its old contents are
// ignored, its capacity reused). *error_bound receives a bound on the l1 norm of the rounding
// error (0 for the direct sum, whose terms are all nonnegative).
void Convolve(const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c,
              double* error_bound) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  const std::size_t out = n + m - 1;
  *error_bound = 0.0;
  int log2n = 0;
  const std::size_t size = FftSize(out, &log2n);
  // Direct convolution over the nonzero entries of the sparser side when that is cheaper than
  // the FFT (sparse distributions such as composed randomized response are then exact, and
  // their large l2 norms would make the FFT's error bound large).
  const auto nonzeros = [](const std::vector<double>& v) {
    return static_cast<double>(std::count_if(v.begin(), v.end(), [](double x) { return x != 0; }));
  };
  const double direct_a = nonzeros(a) * static_cast<double>(m);
  const double direct_b = nonzeros(b) * static_cast<double>(n);
  if (std::min(direct_a, direct_b) <= FftCost(size, log2n)) {
    c.assign(out, 0.0);
    const bool a_outer = direct_a <= direct_b;
    const auto& outer = a_outer ? a : b;
    const auto& inner = a_outer ? b : a;
    for (std::size_t j = 0; j < outer.size(); ++j) {
      const double w = outer[j];
      if (w == 0.0) continue;
      double* dst = c.data() + j;
      for (std::size_t i = 0; i < inner.size(); ++i) dst[i] += w * inner[i];
    }
    return;
  }
  // Both real sequences in one complex transform: z = a + i b, Z = FFT(z); then
  // A_k = (Z_k + conj Z_{-k}) / 2, B_k = (Z_k - conj Z_{-k}) / (2i) and
  // C_k = A_k B_k = (Z_k^2 - conj(Z_{-k})^2) / (4i).
  std::vector<double> re(size, 0.0), im(size, 0.0);
  std::copy(a.begin(), a.end(), re.begin());
  std::copy(b.begin(), b.end(), im.begin());
  const Twiddles tw = MakeTwiddles(size);
  FftForwardToBitReversed(re, im, tw);
  // In bit-reversed order, the partner -k of the frequency at position p is at position
  // 3 * 2^m - 1 - p for p in [2^m, 2^{m+1}) (and 0 for 0): both ends of each block walk inwards.
  const auto combine = [&](std::size_t p, std::size_t q) {
    const double zr = re[p], zi = im[p];
    const double wr = re[q], wi = -im[q];  // conj Z_{-k}
    // (Z^2 - W^2) / (4i) with Z^2 - W^2 = (zr^2 - zi^2 - wr^2 + wi^2) + i (2 zr zi - 2 wr wi);
    // (x + iy) / (4i) = (y - ix) / 4. C is Hermitian, so C_{-k} = conj C_k.
    const double x = (zr * zr - zi * zi) - (wr * wr - wi * wi);
    const double y = 2.0 * (zr * zi - wr * wi);
    re[p] = 0.25 * y;
    im[p] = -0.25 * x;
    re[q] = re[p];
    im[q] = -im[p];
  };
  combine(0, 0);
  for (std::size_t block = 1; block < size; block <<= 1) {
    for (std::size_t p = block, q = 2 * block - 1; p <= q; ++p, --q) combine(p, q);
  }
  FftInverseFromBitReversed(re, im, tw);
  c.resize(out);
  const double inv = 1.0 / static_cast<double>(size);
  for (std::size_t i = 0; i < out; ++i) c[i] = std::max(re[i] * inv, 0.0);
  // Error bound (Higham 2002, Thm 24.2): each transform has ||error||_2 <= kappa ||result||_2
  // with kappa = log2(N) eta / (1 - log2(N) eta), eta = mu + gamma_4 (sqrt 2 + mu), mu the
  // twiddles' relative error. Here mu <= (3 log2 N + 4) u (a product of at most log2 N roots,
  // each from a chain of half-angle steps), so eta <= (3 log2 N + 12) u. With
  // ||FFT a||_inf <= ||a||_1 <= 1 the error of c is then <= 4 kappa (||a||_2 + ||b||_2) in l2
  // (the forward transform's error reaches the product through A and B, the inverse adds its
  // own), and <= sqrt(out) times that in l1, which bounds its effect on any delta(eps). This
  // worst-case bound is typically 1e2-1e3 times the actual error; it only matters for delta
  // targets below about 1e-9.
  const double eta = (3.0 * log2n + 12.0) * kUnitRoundoff;
  const double kappa = log2n * eta / (1.0 - log2n * eta);
  *error_bound = std::sqrt(static_cast<double>(out)) * 4.0 * kappa * (Norm2(a) + Norm2(b));
}

// a <- the convolution of a and b, in place and in one pass over a, when b has at most
// kMaxSparseTerms nonzero masses (randomized response has 4) and Convolve would take the direct
// sum with b as the outer side; false (a unchanged) otherwise. Each output is summed in
// Convolve's order (from 0, b's nonzero terms by ascending index), so the bits are Convolve's.
// Outputs are computed block by block from the top: output o reads a[o - j] for j >= 0 only,
// which a block's outputs overwrite only after the block is complete.
constexpr std::size_t kMaxSparseTerms = 8;

bool FoldSparseInPlace(std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::size_t index[kMaxSparseTerms];
  double mass[kMaxSparseTerms];
  std::size_t terms = 0;
  for (std::size_t j = 0; j < m; ++j) {
    if (b[j] == 0.0) continue;
    if (terms == kMaxSparseTerms) return false;
    index[terms] = j;
    mass[terms] = b[j];
    ++terms;
  }
  int log2n = 0;
  const std::size_t out = n + m - 1;
  const double direct_b = static_cast<double>(terms) * static_cast<double>(n);
  if (terms == 0 || direct_b > FftCost(FftSize(out, &log2n), log2n)) return false;
  // Convolve takes b as the outer side iff nonzeros(a) * m > direct_b.
  double nonzeros_a = 0.0;
  bool b_outer = false;
  for (std::size_t i = 0; i < n && !b_outer; ++i) {
    if (a[i] != 0.0) b_outer = ++nonzeros_a * static_cast<double>(m) > direct_b;
  }
  if (!b_outer) return false;
  a.resize(out, 0.0);
  constexpr std::size_t kBlock = 512;
  double block[kBlock];
  for (std::size_t hi = out; hi > 0;) {
    const std::size_t lo = hi > kBlock ? hi - kBlock : 0;
    std::fill(block, block + (hi - lo), 0.0);
    for (std::size_t t = 0; t < terms; ++t) {
      const std::size_t j = index[t];
      const double w = mass[t];
      // Outputs o in [lo, hi) whose source o - j lies in [0, n).
      const std::size_t begin = std::max(lo, j);
      const std::size_t end = std::min(hi, n + j);
      if (begin >= end) continue;  // no pointer past the block or the input is ever formed
      const double* src = a.data() + (begin - j);
      double* dst = block + (begin - lo);
      for (std::size_t o = begin; o < end; ++o) *dst++ += w * *src++;
    }
    std::copy(block, block + (hi - lo), a.begin() + static_cast<std::ptrdiff_t>(lo));
    hi = lo;
  }
  return true;
}

}  // namespace

PrivacyLossDistribution::PrivacyLossDistribution(const PldOptions& options)
    : options_(options), lowest_index_(0), probs_{1.0}, infinity_mass_(0.0) {
  CheckOptions(options, "PrivacyLossDistribution");
}

PrivacyLossDistribution::PrivacyLossDistribution(const PldOptions& options,
                                                 std::int64_t lowest_index,
                                                 std::vector<double> probs, double infinity_mass)
    : options_(options),
      lowest_index_(lowest_index),
      probs_(std::move(probs)),
      infinity_mass_(infinity_mass) {
  Truncate();
}

PrivacyLossDistribution PrivacyLossDistribution::Gaussian(double sensitivity, double sigma,
                                                          const PldOptions& options) {
  const char* fn = "PrivacyLossDistribution::Gaussian";
  CheckOptions(options, fn);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  const double mu = sensitivity / sigma;
  if (mu == 0.0) return PrivacyLossDistribution(options);
  const double mean = 0.5 * mu * mu;
  // z with Phi(-z) <= tail_mass_truncation (bisection; z = 38 when nothing may be cut).
  double z = 38.0;
  if (options.tail_mass_truncation > 0.0) {
    double lo = 0.0, hi = 38.0;
    for (int it = 0; it < 80; ++it) {
      const double mid = 0.5 * (lo + hi);
      (pld_detail::NormalCdf(-mid) <= options.tail_mass_truncation ? hi : lo) = mid;
    }
    z = hi;
  }
  const auto cdf = [&](double x) { return pld_detail::NormalCdf((x - mean) / mu); };
  const auto sf = [&](double x) { return pld_detail::NormalCdf(-((x - mean) / mu)); };
  double inf_mass = 0.0;
  const double h = options.value_discretization;
  auto [lowest, cells] = Discretise(mean - z * mu, mean + z * mu, mean, h, cdf, sf, &inf_mass, fn);
  // Each cell's mass connects the dots (AddPieceConnectingDots) with c the log-density's largest
  // slope on the cell, (mean - u) / mu^2 at its lower end u; the mass at or below the lowest
  // point stays there.
  std::vector<double> probs(cells.size(), 0.0);
  probs[0] = cells[0];
  for (std::size_t k = 1; k < cells.size(); ++k) {
    const double u = GridValue(lowest + static_cast<std::int64_t>(k) - 1, h);
    const double v = GridValue(lowest + static_cast<std::int64_t>(k), h);
    AddPieceConnectingDots(probs, lowest, u, v, (mean - u) / (mu * mu), cells[k], h, fn);
  }
  return PrivacyLossDistribution(options, lowest, std::move(probs), inf_mass);
}

PrivacyLossDistribution PrivacyLossDistribution::Laplace(double sensitivity, double scale,
                                                         const PldOptions& options) {
  const char* fn = "PrivacyLossDistribution::Laplace";
  CheckOptions(options, fn);
  Require(std::isfinite(sensitivity) && sensitivity >= 0.0, fn,
          "sensitivity must be finite and >= 0", sensitivity);
  Require(std::isfinite(scale) && scale > 0.0, fn, "scale must be finite and > 0", scale);
  const double e0 = sensitivity / scale;
  if (e0 == 0.0) return PrivacyLossDistribution(options);
  // P(L <= x) = e^{-(e0 - x)/2} / 2 on [-e0, e0): an atom e^{-e0}/2 at -e0, the density
  // e^{-(e0 - x)/2} / 4 (proportional to e^{x/2}) between, an atom 1/2 at e0. The atoms and each
  // cell's piece of the density connect the dots (for c = 1/2 the piece's atom is its
  // midpoint: P-mass and Q-mass both kept exactly).
  const double h = options.value_discretization;
  const auto cdf = [e0](double x) { return 0.5 * math::Exp(-0.5 * (e0 - x)); };
  const std::int64_t i_lo = CeilIndex(-e0, h, fn) - 1;
  const std::int64_t i_hi = CeilIndex(e0, h, fn);
  RequireGridPoints(i_lo, i_hi, fn);
  std::vector<double> probs(static_cast<std::size_t>(i_hi - i_lo + 1), 0.0);
  double u = -e0;
  double f_u = cdf(u);
  AddAtomConnectingDots(probs, i_lo, -e0, f_u, h, fn);
  for (std::int64_t b = i_lo + 1; b <= i_hi && u < e0; ++b) {
    const double v = std::min(GridValue(b, h), e0);
    if (v <= u) continue;
    const double f_v = cdf(v);
    AddPieceConnectingDots(probs, i_lo, u, v, 0.5, f_v - f_u, h, fn);
    u = v;
    f_u = f_v;
  }
  AddAtomConnectingDots(probs, i_lo, e0, 0.5, h, fn);
  return PrivacyLossDistribution(options, i_lo, std::move(probs), 0.0);
}

PrivacyLossDistribution PrivacyLossDistribution::RandomizedResponse(double epsilon,
                                                                    const PldOptions& options) {
  const char* fn = "PrivacyLossDistribution::RandomizedResponse";
  CheckOptions(options, fn);
  Require(std::isfinite(epsilon) && epsilon >= 0.0, fn, "epsilon must be finite and >= 0", epsilon);
  if (epsilon == 0.0) return PrivacyLossDistribution(options);
  const double low = 1.0 / (1.0 + math::Exp(epsilon));  // P(L = -eps)
  // Two atoms, each connecting the dots between its two grid neighbours (AddAtomConnectingDots).
  const double h = options.value_discretization;
  const std::int64_t i_lo = CeilIndex(-epsilon, h, fn) - 1;
  const std::int64_t i_hi = CeilIndex(epsilon, h, fn);
  RequireGridPoints(i_lo, i_hi, fn);
  std::vector<double> probs(static_cast<std::size_t>(i_hi - i_lo + 1), 0.0);
  AddAtomConnectingDots(probs, i_lo, -epsilon, low, h, fn);
  AddAtomConnectingDots(probs, i_lo, epsilon, 1.0 - low, h, fn);
  return PrivacyLossDistribution(options, i_lo, std::move(probs), 0.0);
}

PrivacyLossDistribution PrivacyLossDistribution::DiscreteGaussian(std::int64_t sensitivity,
                                                                  double sigma,
                                                                  const PldOptions& options) {
  const char* fn = "PrivacyLossDistribution::DiscreteGaussian";
  CheckOptions(options, fn);
  Require(sensitivity >= 0, fn, "sensitivity must be >= 0", static_cast<double>(sensitivity));
  Require(std::isfinite(sigma) && sigma > 0.0, fn, "sigma must be finite and > 0", sigma);
  if (sensitivity == 0) return PrivacyLossDistribution(options);
  // Support |x| <= 40 sigma + 1 (mass beyond e^{-800}: nothing representable is lost), then the
  // weights e^{-x^2/(2 sigma^2)} normalised by their sum.
  const auto half_width = static_cast<std::int64_t>(std::ceil(40.0 * sigma)) + 1;
  Require(half_width < kMaxPoints, fn, "sigma too large for the discrete support", sigma);
  const double two_s2 = 2.0 * sigma * sigma;
  std::vector<double> weight(static_cast<std::size_t>(2 * half_width + 1));
  double total = 0.0;
  for (std::int64_t x = -half_width; x <= half_width; ++x) {
    const double w = math::Exp(-static_cast<double>(x) * static_cast<double>(x) / two_s2);
    weight[static_cast<std::size_t>(x + half_width)] = w;
    total += w;
  }
  const double h = options.value_discretization;
  const double d = static_cast<double>(sensitivity);
  // Losses decrease in x: the smallest x carries the largest loss. Keep the central part.
  const double tail = options.tail_mass_truncation;
  std::int64_t x_lo = -half_width, x_hi = half_width;
  double inf_mass = 0.0, low_mass = 0.0;
  while (x_lo < x_hi &&
         inf_mass + weight[static_cast<std::size_t>(x_lo + half_width)] / total <= tail) {
    inf_mass += weight[static_cast<std::size_t>(x_lo + half_width)] / total;
    ++x_lo;
  }
  while (x_hi > x_lo &&
         low_mass + weight[static_cast<std::size_t>(x_hi + half_width)] / total <= tail) {
    low_mass += weight[static_cast<std::size_t>(x_hi + half_width)] / total;
    --x_hi;
  }
  const auto loss = [&](std::int64_t x) {
    return (d * d - 2.0 * d * static_cast<double>(x)) / two_s2;
  };
  const std::int64_t i_lo = CeilIndex(loss(x_hi), h, fn) - 1;
  const std::int64_t i_hi = CeilIndex(loss(x_lo), h, fn);
  RequireGridPoints(i_lo, i_hi, fn);
  std::vector<double> probs(static_cast<std::size_t>(i_hi - i_lo + 1), 0.0);
  for (std::int64_t x = x_lo; x <= x_hi; ++x) {
    AddAtomConnectingDots(probs, i_lo, loss(x),
                          weight[static_cast<std::size_t>(x + half_width)] / total, h, fn);
  }
  probs[0] += low_mass;  // the largest x (smallest losses) moved up onto the lowest point
  return PrivacyLossDistribution(options, i_lo, std::move(probs), inf_mass);
}

void PrivacyLossDistribution::Truncate() {
  const double tail = options_.tail_mass_truncation;
  std::size_t first = 0;
  std::size_t last = probs_.size();  // one past
  // Upper tail -> +inf.
  double cut = 0.0;
  while (last > first + 1 && cut + probs_[last - 1] <= tail) cut += probs_[--last];
  infinity_mass_ += cut;
  // Lower tail -> onto the lowest kept point (its loss only grows: pessimistic).
  double moved = 0.0;
  while (first + 1 < last && moved + probs_[first] <= tail) moved += probs_[first++];
  if (first > 0 || last < probs_.size()) {
    probs_.resize(last);
    probs_.erase(probs_.begin(), probs_.begin() + static_cast<std::ptrdiff_t>(first));
    probs_[0] += moved;
    lowest_index_ += static_cast<std::int64_t>(first);
  }
}

PrivacyLossDistribution PrivacyLossDistribution::Compose(
    const PrivacyLossDistribution& other) const {
  PrivacyLossDistribution result = *this;
  result.ComposeInPlace(other);
  return result;
}

void PrivacyLossDistribution::ComposeInPlace(const PrivacyLossDistribution& other) {
  Require(other.options_.value_discretization == options_.value_discretization,
          "PrivacyLossDistribution::Compose", "both grids must have the same interval",
          other.options_.value_discretization);
  // The result goes into a per-thread buffer that then swaps with probs_: in a sequence of
  // compositions the two buffers keep their capacity and nothing is allocated once they are
  // large enough (other may be *this: it is only read until the swap).
  thread_local std::vector<double> scratch;
  double fft_error = 0.0;
  // A sparse other (randomized response) folds into probs_ in place, one pass; the bits are
  // those of Convolve (FoldSparseInPlace).
  const bool folded = &other != this && FoldSparseInPlace(probs_, other.probs_);
  if (!folded) Convolve(probs_, other.probs_, scratch, &fft_error);
  // P(either loss is +inf), plus the convolution's rounding error bound (pessimistic).
  infinity_mass_ = std::min(1.0, infinity_mass_ + other.infinity_mass_ -
                                     infinity_mass_ * other.infinity_mass_ + fft_error);
  options_.tail_mass_truncation =
      std::max(options_.tail_mass_truncation, other.options_.tail_mass_truncation);
  lowest_index_ += other.lowest_index_;
  if (!folded) probs_.swap(scratch);
  Truncate();
}

PrivacyLossDistribution PrivacyLossDistribution::SelfCompose(std::int64_t k) const {
  Require(k >= 0, "PrivacyLossDistribution::SelfCompose", "k must be >= 0", static_cast<double>(k));
  PrivacyLossDistribution result(options_);
  PrivacyLossDistribution base = *this;
  while (k > 0) {
    if (k & 1) result.ComposeInPlace(base);
    k >>= 1;
    if (k > 0) base.ComposeInPlace(base);
  }
  return result;
}

double PrivacyLossDistribution::DeltaForEpsilon(double epsilon) const {
  Require(!std::isnan(epsilon), "PrivacyLossDistribution::DeltaForEpsilon",
          "epsilon must not be NaN", epsilon);
  const double h = options_.value_discretization;
  double delta = 0.0;
  for (std::size_t i = probs_.size(); i-- > 0;) {
    const double l = GridValue(lowest_index_ + static_cast<std::int64_t>(i), h);
    if (l <= epsilon) break;
    delta += probs_[i] * -math::Expm1(epsilon - l);
  }
  return std::min(1.0, delta + infinity_mass_);
}

double PrivacyLossDistribution::EpsilonForDelta(double delta) const {
  Require(delta > 0.0 && delta < 1.0, "PrivacyLossDistribution::EpsilonForDelta",
          "delta must be in (0, 1)", delta);
  if (infinity_mass_ > delta) return std::numeric_limits<double>::infinity();
  const double h = options_.value_discretization;
  const std::size_t n = probs_.size();
  // f[m] = 1 - e^{-m h}, g[m] = e^{-m h}, m = 0..n.
  const ExpTables& tables = ExpTablesFor(h, n);
  const std::vector<double>& f = tables.f;
  const std::vector<double>& g = tables.g;
  // D(j) = delta at eps = value of local index j (j = -1 .. n-1), a sum of nonnegative terms.
  const auto delta_at = [&](std::int64_t j) {
    double d = 0.0;
    for (std::size_t i = n; i-- > 0 && static_cast<std::int64_t>(i) > j;) {
      d += probs_[i] * f[i - static_cast<std::size_t>(j)];
    }
    return d + infinity_mass_;
  };
  // Smallest local j in [-1, n-1] with D(j) <= delta; D(n-1) = infinity mass <= delta.
  // Candidate first, by one scan down from the top with the running sums A = sum_{i>j} p_i and
  // B = sum_{i>j} p_i e^{-(i-j) h} (D(j) = A - B + p_inf up to their rounding): O(n - j)
  // instead of the binary search's O(n log n). The exact sums then confirm the crossing
  // D(j - 1) > delta >= D(j) (the binary search runs if they do not), so the result is the
  // one of the exact sums either way.
  std::int64_t hi = static_cast<std::int64_t>(n) - 1;
  {
    double a = 0.0, b = 0.0;
    const double step = g.size() > 1 ? g[1] : 1.0;
    for (; hi >= 0; --hi) {  // A, B of j = hi - 1 from those of hi
      const double p = probs_[static_cast<std::size_t>(hi)];
      a += p;
      b = (b + p) * step;
      if (a - b + infinity_mass_ > delta) break;
    }
  }
  const bool confirmed =
      hi == -1 ? delta_at(-1) <= delta : delta_at(hi) <= delta && delta_at(hi - 1) > delta;
  if (!confirmed) {
    std::int64_t lo = -1;
    hi = static_cast<std::int64_t>(n) - 1;
    if (delta_at(lo) <= delta) {
      hi = lo;
    } else {
      while (hi - lo > 1) {  // invariant: D(lo) > delta >= D(hi)
        const std::int64_t mid = lo + (hi - lo) / 2;
        (delta_at(mid) <= delta ? hi : lo) = mid;
      }
    }
  }
  if (hi == -1) {
    // delta is reached below every loss value: there delta(eps) = p_inf + S - e^eps T with
    // S = sum p_i and T = sum p_i e^{-l_i}; solve with l_i measured from the lowest value.
    double s = infinity_mass_, t = 0.0;
    for (std::size_t i = n; i-- > 0;) {
      s += probs_[i];
      t += probs_[i] * g[i];
    }
    const double eps = GridValue(lowest_index_, h) + math::Log((s - delta) / t);
    return std::max(0.0, eps);
  }
  // eps in (value(hi - 1), value(hi)]: with t = eps - value(hi - 1),
  // delta(eps) = D(hi - 1) - (e^t - 1) B, B = sum_{i >= hi} p_i e^{-(i - hi + 1) h}.
  const std::int64_t j = hi - 1;
  const double d0 = delta_at(j);
  double b = 0.0;
  for (std::size_t i = n; i-- > static_cast<std::size_t>(hi);) {
    b += probs_[i] * g[i - static_cast<std::size_t>(j)];
  }
  double t = math::Log1p((d0 - delta) / b);
  t = std::min(std::max(t, 0.0), h);
  const double eps = GridValue(lowest_index_ + j, h) + t;
  return std::max(0.0, eps);
}

}  // namespace dpadmm
