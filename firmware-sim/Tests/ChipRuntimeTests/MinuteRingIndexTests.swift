import ChipRuntime
import Testing

@Suite struct MinuteRingIndexTests {
    @Test func appendsWrapAndOverwriteTheOldest() {
        var ring = MinuteRingIndex(capacity: 3)
        #expect(ring.isEmpty)
        #expect((0..<3).map { _ in ring.append() } == [0, 1, 2])
        #expect(ring.isFull && ring.oldest == 0 && ring.next == 3)
        #expect(ring.append() == 3)                          // drops 0, unacknowledged
        #expect(ring.oldest == 1 && ring.count == 3 && ring.overwrittenUnacknowledged == 1)
        #expect(ring.slot(of: 3) == 0 && ring.slot(of: 4) == 1 && ring.slot(of: 2) == 2)
        #expect(!ring.contains(0) && ring.contains(1) && ring.contains(3) && !ring.contains(4))
    }

    @Test func acknowledgedRecordsAreErasedAndNotCountedWhenOverwritten() {
        var ring = MinuteRingIndex(capacity: 2)
        _ = ring.append(); _ = ring.append()
        #expect(ring.erase(before: 1) == 1)
        #expect(ring.oldest == 1 && ring.acknowledgedThrough == 1 && ring.count == 1)
        _ = ring.append()                                    // 2: fills the ring, nothing dropped
        _ = ring.append()                                    // 3: drops 1, which was not acknowledged
        #expect(ring.overwrittenUnacknowledged == 1 && ring.oldest == 2)
        #expect(ring.erase(before: 99) == 4, "past next: clamped, never acknowledges the future")
        #expect(ring.isEmpty && ring.acknowledgedThrough == 4)
        #expect(ring.erase(before: 0) == 0 && ring.acknowledgedThrough == 4 && ring.oldest == 4, "acknowledgement never goes back")
    }

    @Test func restoredIndexKeepsTheNewestRecordsThatFit() {
        let ring = MinuteRingIndex(capacity: 4, oldest: 10, next: 20, acknowledgedThrough: 12)
        #expect(ring.oldest == 16 && ring.next == 20 && ring.count == 4 && ring.acknowledgedThrough == 12)
        let small = MinuteRingIndex(capacity: 8, oldest: 5, next: 7, acknowledgedThrough: 5)
        #expect(small.oldest == 5 && small.count == 2)
        #expect(MinuteRingIndex(capacity: 0).capacity == 1)
    }

    @Test func sequenceNumbersWrapAt32Bits() {
        var ring = MinuteRingIndex(capacity: 2, oldest: UInt32.max - 1, next: UInt32.max, acknowledgedThrough: 0)
        #expect(ring.count == 1)
        #expect(ring.append() == UInt32.max)
        #expect(ring.next == 0 && ring.count == 2)
        #expect(ring.append() == 0 && ring.count == 2)
    }
}
