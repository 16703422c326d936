import Testing
@testable import BandGateway

/// A store outage is logged once for the gateway, not once per device per live write.
struct StoreOutageLogTests {
    @Test func oneLineWhenTheFirstDeviceFindsTheStoreDownAndOneWhenTheLastReachesItAgain() {
        let log = StoreOutageLog()
        var lines: [String] = []
        for _ in 0..<100 {
            for device in ["a", "b", "c"] {
                if let line = log.unavailable(device, reason: "connection refused") { lines.append(line) }
            }
        }
        #expect(lines.count == 1)
        #expect(lines.first?.contains("connection refused") == true)
        #expect(log.available("a", replayed: 3) == nil)
        #expect(log.available("b", replayed: 4) == nil)
        #expect(log.available("c", replayed: 5) == "store reachable again; 12 spooled minutes replayed")
        // The next outage is a new one.
        #expect(log.unavailable("b", reason: "disk full") != nil)
    }

    @Test func aDeviceReplayingAnEarlierRunsSpoolWithoutAnOutageSaysSoItself() {
        let log = StoreOutageLog()
        #expect(log.available("a", replayed: 0) == nil)
        #expect(log.available("a", replayed: 2) == "2 spooled minutes from an earlier run replayed")
    }
}
