// The libm functions the band's logic calls, for the chip, which has no C library: log, exp,
// sin, cos (the sensor model, BandFirmwareCore's Xoshiro256StarStar and HeartModel) and the three
// the compiler emits for Swift's Double (sqrt for squareRoot(), round and ceil for rounded()).
// sqrt, round and ceil are exact (IEEE 754 requires it of sqrt; glibc's are exact too), so they
// match Linux bit for bit. A real port links its toolchain's
// (newlib, picolibc); this board has none, so here are small ones in double precision, written
// for this project: argument reduction, then a polynomial carried far enough that the truncation
// error is below half an ulp. The sensor model only needs them close to glibc's (they feed noise
// and a smoothing filter whose results are rounded to whole beats and steps), and
// Tests/checks/firmware-band.sh compares them with glibc on the host (max error in ulps) before it
// compares the chip's minute records with the Linux band's.
//
// The arithmetic itself (__aeabi_dadd …: the Cortex-M4F's FPU is single precision) comes from
// libgcc of gcc-arm-none-eabi, linked by firmware-sim/board/build.sh.
//
// Domains: log(x ≤ 0) is -inf/NaN as in C; exp overflows to +inf above 709.78 and underflows to 0
// below -745; sin/cos reduce by π/2 with a two-part constant (Cody–Waite), exact enough for
// |x| up to about 1e4 — the model calls them with 0…2π.
#include <stdint.h>

static double from_bits(uint64_t bits) { union { uint64_t u; double d; } v = { .u = bits }; return v.d; }
static uint64_t to_bits(double d) { union { double d; uint64_t u; } v = { .d = d }; return v.u; }

// 2^k as a double, for -1022 ≤ k ≤ 1023.
static double power_of_two(int k) { return from_bits((uint64_t)(k + 1023) << 52); }

static const double ln2_hi = 6.93147180369123816490e-01;   // ln 2, upper bits (exact times small k)
static const double ln2_lo = 1.90821492927058770002e-10;   // ln 2 - ln2_hi

double exp(double x) {
    if (x != x) return x;
    if (x > 709.782712893384) return from_bits(0x7FF0000000000000ull);
    if (x < -745.1332191019412) return 0.0;
    // x = k ln2 + r, |r| ≤ ln2/2; e^r by Taylor to r^14/14! (< 2e-17 relative at |r| = 0.347).
    double kd = x * 1.44269504088896338700 + (x >= 0 ? 0.5 : -0.5);
    int k = (int)kd;
    double r = (x - k * ln2_hi) - k * ln2_lo;
    double term = 1.0, sum = 1.0;
    for (int n = 1; n <= 14; n++) { term *= r / n; sum += term; }
    // Scale in two steps so k = 1024 or k < -1022 does not leave the exponent range at once.
    if (k > 1023) return sum * power_of_two(1023) * power_of_two(k - 1023);
    if (k < -1021) return sum * power_of_two(k + 1000) * power_of_two(-1000);
    return sum * power_of_two(k);
}

double log(double x) {
    if (x != x) return x;
    if (x < 0) return from_bits(0x7FF8000000000000ull);
    if (x == 0) return from_bits(0xFFF0000000000000ull);
    if (x == from_bits(0x7FF0000000000000ull)) return x;
    int e = 0;
    if (x < 2.2250738585072014e-308) { x *= 18014398509481984.0; e = -54; }   // subnormal: scale by 2^54
    uint64_t bits = to_bits(x);
    e += (int)((bits >> 52) & 0x7FF) - 1023;
    double m = from_bits((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);   // 1 ≤ m < 2
    if (m > 1.41421356237309504880) { m *= 0.5; e += 1; }                            // √½ < m ≤ √2
    // log m = 2 atanh f = 2 (f + f³/3 + f⁵/5 + …), f = (m-1)/(m+1), |f| ≤ 0.1716: to f^25.
    double f = (m - 1.0) / (m + 1.0);
    double f2 = f * f, power = f, series = 0.0;
    for (int n = 1; n <= 25; n += 2) { series += power / n; power *= f2; }
    return e * ln2_hi + (e * ln2_lo + 2.0 * series);
}

// π/2 in two parts (Cody–Waite): the first has 33 significant bits, so k·pio2_1 is exact for
// the small quadrant counts k the model produces; the second is the rest of π/2.
static const double pio2_1 = 1.57079632673412561417e+00;
static const double pio2_1t = 6.07710050650619224932e-11;

// sin and cos of r, |r| ≤ π/4, by Taylor to r^17 / r^18 (< 1e-17 at π/4).
static double sin_kernel(double r) {
    double r2 = r * r, term = r, sum = r;
    for (int n = 2; n <= 16; n += 2) { term *= -r2 / (n * (n + 1)); sum += term; }
    return sum;
}
static double cos_kernel(double r) {
    double r2 = r * r, term = 1.0, sum = 1.0;
    for (int n = 1; n <= 17; n += 2) { term *= -r2 / (n * (n + 1)); sum += term; }
    return sum;
}

// x = k π/2 + r; the quadrant k mod 4 picks the kernel and the sign.
static double reduce(double x, int *quadrant) {
    double kd = x * 6.36619772367581382433e-01 + (x >= 0 ? 0.5 : -0.5);
    int k = (int)kd;
    *quadrant = k & 3;
    return (x - k * pio2_1) - k * pio2_1t;
}

double sin(double x) {
    if (x != x || x - x != 0) return from_bits(0x7FF8000000000000ull);   // NaN, ±inf
    int quadrant;
    double r = reduce(x, &quadrant);
    switch (quadrant) {
    case 0: return sin_kernel(r);
    case 1: return cos_kernel(r);
    case 2: return -sin_kernel(r);
    default: return -cos_kernel(r);
    }
}

double cos(double x) {
    if (x != x || x - x != 0) return from_bits(0x7FF8000000000000ull);
    int quadrant;
    double r = reduce(x, &quadrant);
    switch (quadrant) {
    case 0: return cos_kernel(r);
    case 1: return -sin_kernel(r);
    case 2: return -cos_kernel(r);
    default: return sin_kernel(r);
    }
}

// sqrt: the digit-by-digit square root of the 53-bit significand scaled by 2^54, which gives the
// 53 result bits, a round bit and (the remainder) a sticky bit; then round to nearest even.
double sqrt(double x) {
    uint64_t bits = to_bits(x);
    if (x != x || x == 0 || x == from_bits(0x7FF0000000000000ull)) return x;   // NaN, ±0, +inf
    if (bits >> 63) return from_bits(0x7FF8000000000000ull);
    int exponent = (int)(bits >> 52);
    uint64_t m = bits & 0x000FFFFFFFFFFFFFull;
    if (exponent == 0) {   // subnormal: normalise
        exponent = 1;
        while (!(m & 0x0010000000000000ull)) { m <<= 1; exponent--; }
    } else {
        m |= 0x0010000000000000ull;
    }
    int e = exponent - 1075;            // x = m · 2^e, 2^52 ≤ m < 2^53
    if (e & 1) { m <<= 1; e -= 1; }     // e even: 2^52 ≤ m < 2^54
    // q = floor(sqrt(m · 2^54)), 2^53 ≤ q < 2^54, two radicand bits per step.
    uint64_t q = 0, r = 0;
    for (int i = 53; i >= 0; i--) {
        int low = 2 * i - 54;           // bit of m that is bit 2i of m · 2^54
        uint64_t pair = low >= 0 ? (m >> low) & 3 : (low == -1 ? (m << 1) & 2 : 0);
        r = (r << 2) | pair;
        uint64_t t = (q << 2) | 1;
        if (r >= t) { r -= t; q = (q << 1) | 1; } else { q <<= 1; }
    }
    uint64_t mantissa = q >> 1;
    if ((q & 1) && (r != 0 || (mantissa & 1))) mantissa++;
    int resultExponent = e / 2 - 26 + 52;   // value = q · 2^(e/2 − 27) = mantissa · 2^(e/2 − 26)
    if (mantissa == 0x0020000000000000ull) { mantissa >>= 1; resultExponent++; }
    return from_bits(((uint64_t)(resultExponent + 1023) << 52) | (mantissa & 0x000FFFFFFFFFFFFFull));
}

// ceil and round (half away from zero) by clearing the fraction bits of the binary form.
double ceil(double x) {
    uint64_t bits = to_bits(x);
    int e = (int)((bits >> 52) & 0x7FF) - 1023;
    if (e >= 52) return x;                                   // integral, inf or NaN
    if (e < 0) {                                             // |x| < 1
        if ((bits << 1) == 0) return x;                      // ±0
        return (bits >> 63) ? from_bits(0x8000000000000000ull) : 1.0;
    }
    uint64_t fraction = 0x000FFFFFFFFFFFFFull >> e;
    if (!(bits & fraction)) return x;
    if (!(bits >> 63)) bits += fraction + 1;                 // positive: up to the next integer
    return from_bits(bits & ~fraction);
}

double round(double x) {
    uint64_t bits = to_bits(x);
    int e = (int)((bits >> 52) & 0x7FF) - 1023;
    if (e >= 52) return x;
    uint64_t sign = bits & 0x8000000000000000ull;
    if (e < -1) return from_bits(sign);                      // |x| < 0.5
    if (e == -1) return from_bits(sign | 0x3FF0000000000000ull);   // 0.5 ≤ |x| < 1
    uint64_t fraction = 0x000FFFFFFFFFFFFFull >> e;
    bits += (fraction + 1) >> 1;                             // + 0.5 in the magnitude (carries into the exponent)
    return from_bits(bits & ~fraction);
}
