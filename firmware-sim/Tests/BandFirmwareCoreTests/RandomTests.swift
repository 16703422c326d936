import BandFirmwareCore
import Testing

/// The simulator's one random source: xoshiro256** seeded by SplitMix64, as Blackman and Vigna
/// publish them (the expected outputs were computed apart, by a transcription of their C code),
/// so a seed names the same band everywhere, on Linux and on the chip.
@Suite struct RandomTests {
    @Test(arguments: [(UInt64(0), [UInt64(0x99EC_5F36_CB75_F2B4), 0xBF6E_1F78_4956_452A, 0x1A5F_849D_4933_E6E0]),
                      (UInt64(42), [UInt64(0x1578_0B2E_0C2E_C716), 0x6104_D986_6D11_3A7E, 0xAE17_5332_39E4_99A1])])
    func theFirstOutputsOfASeedAreTheReferenceOnes(seed: UInt64, expected: [UInt64]) {
        var random = Xoshiro256StarStar(seed: seed)
        #expect((0..<3).map { _ in random.next() } == expected)
    }

    @Test func unitIsInZeroToOneAndChanceHonoursItsBounds() {
        var random = Xoshiro256StarStar(seed: 7)
        var sum = 0.0
        for _ in 0..<10_000 {
            let value = random.unit()
            #expect(value >= 0 && value < 1)
            sum += value
        }
        #expect(abs(sum / 10_000 - 0.5) < 0.02)
        #expect(!(0..<1_000).contains { _ in random.chance(0) })
        #expect((0..<1_000).allSatisfy { _ in random.chance(1) })
    }

    @Test func gaussianHasMeanZeroAndUnitSpread() {
        var random = Xoshiro256StarStar(seed: 11)
        let values = (0..<20_000).map { _ in random.gaussian() }
        let mean = values.reduce(0, +) / Double(values.count)
        let variance = values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        #expect(abs(mean) < 0.03 && abs(variance - 1) < 0.05, "mean \(mean), variance \(variance)")
    }

    /// A fork is a stream of its own: another purpose gives other numbers, and forking does not
    /// move the parent.
    @Test func forksAreIndependentAndLeaveTheParentAlone() {
        let parent = Xoshiro256StarStar(seed: 5)
        var a = parent.fork(1), b = parent.fork(2), again = parent.fork(1)
        let first = (0..<4).map { _ in a.next() }
        #expect(first == (0..<4).map { _ in again.next() })
        #expect(first != (0..<4).map { _ in b.next() })
        var copy = parent, original = Xoshiro256StarStar(seed: 5)
        #expect(copy.next() == original.next())
    }
}
