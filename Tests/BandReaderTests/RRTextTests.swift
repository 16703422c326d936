import Foundation
import Testing
@testable import BandReader

@Suite struct RRIntervalTextTests {
    @Test func integerFormattingMatchesPrintfForEveryRawValue() {
        var mismatches: [UInt16] = []
        for raw in 0...UInt16.max where SampleWriter.millisecondsText(raw) != String(format: "%.1f", Double(raw) * 1000 / 1024) {
            mismatches.append(raw)
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }
}
