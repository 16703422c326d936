// The chip's libm (firmware-sim/board/mps2-an386/libm.c) against glibc's on the host: the largest
// error in ulps of log, exp, sin and cos over the ranges the sensor model calls them with, plus
// random arguments across wider ranges; sqrt, ceil and round must equal glibc's exactly. Prints
// one line per function; exit 1 when any is over the bound given as argv[1] (ulps) or differs.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
double bk_log(double), bk_exp(double), bk_sin(double), bk_cos(double), bk_sqrt(double), bk_ceil(double), bk_round(double);

static int64_t ordered(double d) { int64_t i; memcpy(&i, &d, 8); return i < 0 ? INT64_MIN - i : i; }
static int64_t to_ordered_bits(double d) { int64_t i; if (isnan(d)) return 0x7FF8000000000000ll; memcpy(&i, &d, 8); return i; }   // every NaN alike
static double ulps(double a, double b) {
    if (isnan(a) && isnan(b)) return 0;
    if (isnan(a) || isnan(b)) return 1e30;
    if (a == b) return 0;
    return fabs((double)(ordered(a) - ordered(b)));
}
static uint64_t state = 0x9E3779B97F4A7C15ull;
static double unit(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return (state >> 11) * 0x1.0p-53; }

int main(int argc, char **argv) {
    double bound = argc > 1 ? atof(argv[1]) : 2;
    double worst[4] = {0};
    double at[4] = {0};
    for (int i = 0; i < 2000000; i++) {
        double u = unit();
        double lx = i % 2 ? u : exp2(unit() * 200 - 100);               // Box–Muller's (0,1], and wide
        double ex = i % 2 ? -1.0 / (1 + u * 120) : unit() * 1400 - 700;  // the heart model's -1/tau, and wide
        double tx = i % 2 ? 2 * M_PI * u : unit() * 2000 - 1000;         // 2π·phase, and wide
        double e[4] = { ulps(bk_log(lx), log(lx)), ulps(bk_exp(ex), exp(ex)), ulps(bk_sin(tx), sin(tx)), ulps(bk_cos(tx), cos(tx)) };
        double x[4] = { lx, ex, tx, tx };
        for (int f = 0; f < 4; f++) if (e[f] > worst[f]) { worst[f] = e[f]; at[f] = x[f]; }
    }
    // sqrt, ceil and round are exact: any difference from glibc fails, whatever the bound.
    long inexact = 0;
    for (int i = 0; i < 2000000; i++) {
        double x = i % 3 == 0 ? unit() * 4 : i % 3 == 1 ? exp2(unit() * 2000 - 1000) : (unit() - 0.5) * 1e6;
        if (i < 64) x = (i - 32) * 0.5;                            // exact halves for round
        if (i == 64) x = 5e-324;                                   // the smallest subnormal
        if (to_ordered_bits(bk_sqrt(x)) != to_ordered_bits(sqrt(x)) || to_ordered_bits(bk_ceil(x)) != to_ordered_bits(ceil(x))
            || to_ordered_bits(bk_round(x)) != to_ordered_bits(round(x))) {
            if (inexact++ < 5) printf("libm sqrt/ceil/round differ from glibc at %.17g\n", x);
        }
    }
    printf("libm sqrt, ceil, round: %ld differences from glibc in 2000000 arguments\n", inexact);
    const char *names[4] = {"log", "exp", "sin", "cos"};
    int failed = 0;
    for (int f = 0; f < 4; f++) {
        printf("libm %s: max %.0f ulp (at %.17g)\n", names[f], worst[f], at[f]);
        if (worst[f] > bound) failed = 1;
    }
    return failed || inexact != 0;
}
