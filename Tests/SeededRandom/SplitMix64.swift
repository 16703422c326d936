import Foundation

/// SplitMix64 (Steele, Lea and Flood, 2014): a fixed, seedable stream, so a test that draws
/// random inputs, jitter or a synthetic night fails the same way every time. Not for secrets.
///
/// The one generator every test target shares; it depends on no BandKit module, so a health-side
/// test target can use it without reaching the band's layers.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64

    public init(state: UInt64) { self.state = state }

    public init(seed: UInt64) { self.state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }

    /// `count` bytes of the stream.
    public mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in byte() } }

    /// Uniform in 0..<n, for small n (the modulo bias is irrelevant to fixtures).
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `items`, uniformly.
    public mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }

    /// Uniform in [0, 1), from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// Standard normal (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 0x1.0p-53)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * unit())
    }
}
