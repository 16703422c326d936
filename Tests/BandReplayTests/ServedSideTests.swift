import BandReplay
import BandWire
import Foundation
import Testing

/// H4 btsnoop: a connection on handle 0x40 where each end sends one notification on handle
/// 3 and neither shows a database, then the disconnection. The two server ends tie on
/// every count.
private let bothEndsNotify = "6274736e6f6f700000000001000003ea0000001600000016000000030000000000e33f2cdb14c3e8043e13010040000100563412100fc8180000004800000000000d0000000d000000010000000000e33f2cdb14c7d00240200800040004001b0300480000000d0000000d000000000000000000e33f2cdb14cbb80240200800040004001b0300490000000700000007000000030000000000e33f2cdb14cfa004050400400013"

// Found by fuzz/replay: with the two ends tied, the side came from a Set's iteration order,
// so serving the same trace twice could impersonate a different end.
@Test func theServedSideOfATiedConnectionIsTheRemoteDeviceEveryTime() throws {
    let path = ReplayFixtures.temporaryPath("both-ends-notify.btsnoop")
    try Data(try #require(Hex.decode(bothEndsNotify))).write(to: URL(fileURLWithPath: path))
    for _ in 0..<40 {
        let (recording, _) = try ReplayFixtures.record(path)
        let side = try #require(recording.side())
        #expect(side.server == .remoteDevice)
        #expect(side.connection.handle == 0x40)
        #expect(recording.timeline(side).count == 1)
    }
}
