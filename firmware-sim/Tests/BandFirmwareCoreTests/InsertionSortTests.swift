import BandFirmwareCore
import Testing

/// The band's own small sort must order exactly as the standard library's stable sort did, so the
/// day plans and fault times it sorts stay the same on Linux and on the chip.
@Suite struct InsertionSortTests {
    @Test func ordersAsTheStandardLibrarysStableSortKeepingEqualKeysInOrder() {
        var random = Xoshiro256StarStar(seed: 5)
        for length in 0..<40 {
            for _ in 0..<25 {
                // (key, position): few distinct keys, so equal keys are common and stability shows.
                let pairs = (0..<length).map { position in (key: Int(random.next() % 6), position: position) }
                var ours = pairs
                ours.insertionSort { $0.key < $1.key }
                let standard = pairs.sorted { $0.key < $1.key }
                #expect(ours.map(\.key) == standard.map(\.key))
                #expect(ours.map(\.position) == standard.map(\.position), "length \(length)")
            }
        }
    }

    @Test func sortsWholeNumbersAscending() {
        var times: [Int64] = [90_000, -5, 0, 7_200_000, 90_000, 1]
        times.insertionSort(by: <)
        #expect(times == [-5, 0, 1, 90_000, 90_000, 7_200_000])
    }
}
