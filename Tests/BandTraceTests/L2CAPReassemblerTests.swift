import BandHCI
import BandTestSupport
import BandWire
import Testing
@testable import BandTrace

@Suite struct L2CAPReassemblerTests {
    typealias Key = L2CAPReassembler.Key
    static let central = Key(adapter: 0, handle: 0x40, direction: .rx)

    /// A 20-byte HR notification in an L2CAP frame: 4 + 20 = 24 bytes.
    static let frame = TraceFixtures.l2cap(bytes("1b 29 00 16 55 b6 02 94 02 94 02 94 02 94 02 94 02 94 02 94"))

    struct Result: Equatable {
        var frames: [[UInt8]] = []
        var anomalies: [L2CAPReassembler.Anomaly] = []
    }

    func feed(_ reassembler: L2CAPReassembler, _ fragments: [(Key, ACLPacketBoundary, [UInt8])]) -> Result {
        var result = Result()
        for (key, boundary, bytes) in fragments {
            bytes.withUnsafeBytes { raw in
                let outcome = reassembler.push(key, boundary: boundary, fragment: raw)
                if let frame = outcome.frame {
                    #expect(frame.channel == .att)
                    result.frames.append(Array(frame.payload))
                }
                if let anomaly = outcome.anomaly { result.anomalies.append(anomaly) }
            }
        }
        return result
    }

    /// Splits `frame` into a start of `first` bytes and continuations of `size` bytes.
    func fragments(_ frame: [UInt8], first: Int, size: Int, key: Key = central) -> [(Key, ACLPacketBoundary, [UInt8])] {
        var out: [(Key, ACLPacketBoundary, [UInt8])] = [(key, .firstFlushable, Array(frame.prefix(first)))]
        var index = first
        while index < frame.count {
            out.append((key, .continuing, Array(frame[index..<min(index + size, frame.count)])))
            index += size
        }
        return out
    }

    @Test func wholeFrameInOneStartIsAViewIntoTheFragment() {
        let reassembler = L2CAPReassembler()
        Self.frame.withUnsafeBytes { raw in
            let outcome = reassembler.push(Self.central, boundary: .firstNonFlushable, fragment: raw)
            #expect(outcome.frame?.payload.baseAddress == raw.baseAddress! + 4)
            #expect(outcome.anomaly == nil)
        }
        #expect(reassembler.openFrames == 0)
    }

    @Test func dripFedOneBytePerFragmentIncludingTheHeaderGivesTheSameFrame() {
        let reassembler = L2CAPReassembler()
        let result = feed(reassembler, fragments(Self.frame, first: 1, size: 1))
        #expect(result == Result(frames: [Array(Self.frame.dropFirst(4))]))
        #expect(reassembler.statistics.frames == 1)
    }

    @Test func everySplitPointGivesTheSameFrame() {
        for first in 1..<Self.frame.count {
            for size in [1, 3, 7, Self.frame.count] {
                let result = feed(L2CAPReassembler(), fragments(Self.frame, first: first, size: size))
                #expect(result == Result(frames: [Array(Self.frame.dropFirst(4))]), "first \(first) size \(size)")
            }
        }
    }

    @Test func batchOfInterleavedConnectionsAndDirectionsReassemblesEachSeparately() {
        let other = Key(adapter: 0, handle: 0x41, direction: .rx)
        let sent = Key(adapter: 0, handle: 0x40, direction: .tx)
        let otherAdapter = Key(adapter: 1, handle: 0x40, direction: .rx)
        let write = TraceFixtures.l2cap(bytes("12 2c 00 01"))
        var batch: [(Key, ACLPacketBoundary, [UInt8])] = []
        let a = fragments(Self.frame, first: 5, size: 6)
        let b = fragments(Self.frame, first: 2, size: 9, key: other)
        let c = fragments(write, first: 3, size: 1, key: sent)
        let d = fragments(Self.frame, first: 10, size: 10, key: otherAdapter)
        for i in 0..<max(a.count, b.count, c.count, d.count) {
            for list in [a, b, c, d] where i < list.count { batch.append(list[i]) }
        }
        let result = feed(L2CAPReassembler(), batch)
        #expect(result.anomalies == [])
        #expect(result.frames.sorted { $0.count < $1.count } == [Array(write.dropFirst(4))] + Array(repeating: Array(Self.frame.dropFirst(4)), count: 3))
    }

    @Test func truncationAtEveryOffsetLeavesTheFrameOpenAndTheNextStartDiscardsIt() {
        for cut in 1..<Self.frame.count {
            let reassembler = L2CAPReassembler()
            let partial = feed(reassembler, fragments(Array(Self.frame.prefix(cut)), first: min(cut, 3), size: 2))
            #expect(partial == Result(), "cut \(cut)")
            #expect(reassembler.openFrames == 1)
            let next = feed(reassembler, [(Self.central, .firstFlushable, Self.frame)])
            #expect(next.frames == [Array(Self.frame.dropFirst(4))])
            #expect(next.anomalies == [.incompleteFrameDiscarded(received: cut, expected: cut >= 4 ? 24 : nil)], "cut \(cut)")
            #expect(reassembler.statistics.incompleteFramesDiscarded == 1)
        }
    }

    @Test func continuationWithoutStartIsReportedAndDropped() {
        let reassembler = L2CAPReassembler()
        let result = feed(reassembler, [(Self.central, .continuing, [1, 2, 3])])
        #expect(result == Result(anomalies: [.continuationWithoutStart(bytes: 3)]))
        #expect(reassembler.statistics.continuationsWithoutStart == 1)
    }

    @Test func disconnectDropsTheOpenFrameSoItsContinuationIsAnOrphan() {
        let reassembler = L2CAPReassembler()
        _ = feed(reassembler, [(Self.central, .firstFlushable, Array(Self.frame.prefix(10)))])
        reassembler.close(adapter: 0, handle: 0x40)
        #expect(reassembler.openFrames == 0)
        #expect(reassembler.statistics.framesDroppedOnDisconnect == 1)
        let rest = feed(reassembler, [(Self.central, .continuing, Array(Self.frame.dropFirst(10)))])
        #expect(rest.anomalies == [.continuationWithoutStart(bytes: 14)])
    }

    @Test func bytesBeyondTheAnnouncedLengthAreDroppedAndReported() {
        let result = feed(L2CAPReassembler(), fragments(Self.frame + [0xEE, 0xEE], first: 9, size: 20))
        #expect(result == Result(frames: [Array(Self.frame.dropFirst(4))], anomalies: [.excessBytes(2)]))
        let whole = feed(L2CAPReassembler(), [(Self.central, .firstFlushable, Self.frame + [0xEE])])
        #expect(whole == Result(frames: [Array(Self.frame.dropFirst(4))], anomalies: [.excessBytes(1)]))
    }

    @Test func frameLongerThanTheBufferIsConsumedButNotKept() {
        let big = TraceFixtures.l2cap([UInt8](repeating: 0x52, count: 600))
        let reassembler = L2CAPReassembler()
        let result = feed(reassembler, fragments(big, first: 27, size: 27))
        #expect(result == Result(anomalies: [.frameTooLong(channel: .att, length: 604)]))
        #expect(reassembler.openFrames == 0)
        // The reassembler is still in step: the next frame decodes.
        #expect(feed(reassembler, [(Self.central, .firstFlushable, Self.frame)]).frames.count == 1)
    }

    @Test func largestATTFrameFitsTheDefaultBuffer() {
        let largest = TraceFixtures.l2cap([0x1B, 0x29, 0x00] + [UInt8](repeating: 0xAA, count: 514))
        let result = feed(L2CAPReassembler(), fragments(largest, first: 27, size: 251))
        #expect(result.frames == [Array(largest.dropFirst(4))] && result.anomalies == [])
    }

    @Test func whenEverySlotIsBusyTheLeastRecentlyUsedIsEvicted() {
        let reassembler = L2CAPReassembler(slotCount: 2)
        let keys = (0..<3).map { Key(adapter: 0, handle: UInt16(0x40 + $0), direction: .rx) }
        let starts = keys.map { ($0, ACLPacketBoundary.firstFlushable, Array(Self.frame.prefix(8))) }
        let result = feed(reassembler, starts)
        #expect(result.anomalies == [.slotEvicted(keys[0])])
        let rest = feed(reassembler, keys.map { ($0, ACLPacketBoundary.continuing, Array(Self.frame.dropFirst(8))) })
        #expect(rest.frames.count == 2)
        #expect(rest.anomalies == [.continuationWithoutStart(bytes: 16)])
    }
}
