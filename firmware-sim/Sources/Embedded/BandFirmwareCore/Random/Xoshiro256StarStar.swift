/// xoshiro256** (Blackman & Vigna, 2018), seeded through SplitMix64: the simulator's own PRNG.
///
/// Every random choice of the band (sensor noise, activity variation, fault timing) comes from
/// one of these, seeded from `--seed`, so a run is reproducible bit for bit on any platform —
/// `SystemRandomNumberGenerator` is not. Separate streams (``fork(_:)``) keep, say, the fault
/// injector from shifting the heart-rate noise when a fault rate changes.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64

    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9E37_79B9_7F4A_7C15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s0 = next(); s1 = next(); s2 = next(); s3 = next()
    }

    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// An independent stream for `purpose` (derived from this generator's seed material).
    public func fork(_ purpose: UInt64) -> Xoshiro256StarStar {
        Xoshiro256StarStar(seed: s0 ^ rotateLeft(s2, 17) ^ (purpose &* 0xD605_BBB5_8C8A_BBE7))
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Standard normal (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 0x1.0p-53)
        let u2 = unit()
        return (-2 * _log(u1)).squareRoot() * _cos(2 * .pi * u2)
    }

    /// True with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { p > 0 && unit() < p }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }
}

// The four libm functions the sensor model needs: Glibc's on Linux (so `bandsim` stays bit for
// bit what it was); on the chip the board links its own (firmware-sim/board/mps2-an386/libm.c),
// as a real port links its C library's.
#if canImport(Glibc)
import Glibc
@inline(__always) func _log(_ x: Double) -> Double { Glibc.log(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) func _exp(_ x: Double) -> Double { Glibc.exp(x) }
@inline(__always) func _sin(_ x: Double) -> Double { Glibc.sin(x) }
#else
// C's calling convention (`@_extern(c)`, not `@_silgen_name`): Swift's own passes a Double in a
// VFP register, the C function expects it in r0:r1 (the image's soft-float ABI).
@_extern(c, "log") func _log(_ x: Double) -> Double
@_extern(c, "cos") func _cos(_ x: Double) -> Double
@_extern(c, "exp") func _exp(_ x: Double) -> Double
@_extern(c, "sin") func _sin(_ x: Double) -> Double
#endif
