#if canImport(Glibc)
import Glibc
#endif
import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

@Suite("A band on its own thread, a blocking reader on the test's")
struct BackgroundBandTests {
    /// Sends `hex` and waits (blocking, as a reader does) for the next PDU.
    private func request(_ link: SeqPacketLink, _ hex: String) throws -> [UInt8] {
        try link.send(bytes(hex))
        return try #require(try link.receive(timeout: .seconds(5)))
    }

    @Test("A blocking reader pairs, syncs a day of history with CRC, and it matches the band's own records")
    func syncMatchesGroundTruth() throws {
        var configuration = testConfiguration(scenario: "day")
        configuration.historyDays = 1
        let (band, link) = try BackgroundBand.start(configuration, speed: 60)
        #expect(try request(link, "02 0002") == bytes("03 0502"))
        link.mtu = 512
        #expect(try request(link, "12 3700 0200") == bytes("13"))
        #expect(try request(link, "12 3600 01 0100000000000000") == bytes("13"))
        var pdu = try #require(try link.receive(timeout: .seconds(5)))
        #expect(pdu.starts(with: bytes("1d 3600 81 00")))
        try link.send(bytes("1e"))
        #expect(try request(link, "12 3100 0200") == bytes("13"))
        #expect(try request(link, "12 3400 0100") == bytes("13"))
        #expect(try request(link, "12 3000 01 00000000 0000") == bytes("13"))
        pdu = try #require(try link.receive(timeout: .seconds(5)))
        let response = try HistoryFetchResponse(parsingAll: Array(pdu.dropFirst(3)))
        try link.send(bytes("1e"))
        var records: [MinuteRecord] = []
        var crc = CRC32()
        var complete: HistoryTransferComplete?
        while complete == nil {
            let next = try #require(try link.receive(timeout: .seconds(5)))
            if next[0] == 0x1B, next[1] == 0x33 {
                let packet = try HistoryDataPacket(parsingAll: Array(next.dropFirst(3)))
                crc.update(packet.recordBytes.array)
                records += try packet.records()
            } else if next[0] == 0x1D {
                complete = try HistoryTransferComplete(parsingAll: Array(next.dropFirst(3)))
                try link.send(bytes("1e"))
            }
        }
        #expect(complete?.crc == crc.value)
        #expect(records.count == Int(response.count) && records.count >= 1439)
        let result = band.stop()
        #expect(result.error == nil)
        #expect(result.ending == .stopped)
        let truth = result.records.map(\.record)
        #expect(Array(truth.prefix(records.count)) == records, "what the reader got is what the band counted")
    }
}

@Suite("State and truth files")
struct StateAndTruthFileTests {
    @Test("The state file is written atomically and read back identically; a missing file is a fresh band")
    func stateFileRoundTrip() throws {
        let directory = "/tmp/bandkit-state-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(directory, 0o700)
        defer {
            unlink(directory + "/state.bin")
            rmdir(directory)
        }
        let path = directory + "/state.bin"
        #expect(try StateFile.load(path, capacity: 100) == nil)
        let band = try SimulatedBand(configuration: testConfiguration())
        band.advance(by: .seconds(301))
        try StateFile.save(band.flash, to: path)
        let loaded = try #require(try StateFile.load(path, capacity: 10_080))
        #expect(loaded.serialized() == band.flash.serialized())
        #expect(access(path + ".tmp.\(getpid())", F_OK) != 0, "no temporary file is left behind")
        let smaller = try #require(try StateFile.load(path, capacity: 2))
        #expect(smaller.ring.count == 2 && smaller.ring.next == 5 && smaller.ring.oldest == 3, "a smaller ring keeps the newest records")
    }

    @Test("A truth line has the documented keys, decimals and nulls")
    func truthLine() {
        let worn = MinuteRecord(minuteStart: 1_796_025_600, utcOffset: LocalTimeOffset(quarterHours: 4), flags: [.worn],
                                steps: 112, distanceDecimetres: 851, energyDecikilocalories: 43,
                                heartRate: HeartRateSummary(average: 96, minimum: 88, maximum: 104))
        #expect(TruthLine.json(sequence: 7, record: worn) == """
            {"minute":"2026-11-30T08:00:00Z","steps":112,"distance_m":85.1,"energy_kcal":4.3,"hr_avg":96,"hr_min":88,"hr_max":104,"worn":true,"seq":7,"utc_offset_min":60,"activity":null,"session_start":false}
            """)
        let off = MinuteRecord(minuteStart: 60, utcOffset: .unknown, flags: [], steps: 0, distanceDecimetres: 5,
                               energyDecikilocalories: 0, heartRate: nil)
        #expect(TruthLine.json(sequence: 0, record: off) == """
            {"minute":"1970-01-01T00:01:00Z","steps":0,"distance_m":0.5,"energy_kcal":0.0,"hr_avg":null,"hr_min":null,"hr_max":null,"worn":false,"seq":0,"utc_offset_min":null,"activity":null,"session_start":false}
            """)
        let run = MinuteRecord(minuteStart: 120, utcOffset: .utc, flags: [.worn, .sessionStart], steps: 165, distanceDecimetres: 1_815,
                               energyDecikilocalories: 121, heartRate: nil, activity: .running)
        #expect(TruthLine.json(sequence: 1, record: run).hasSuffix(#""activity":"running","session_start":true}"#))
        let unknown = MinuteRecord(minuteStart: 120, utcOffset: .utc, flags: [.worn], steps: 0, distanceDecimetres: 0,
                                   energyDecikilocalories: 0, heartRate: nil, activity: MinuteActivity(rawValue: 9))
        #expect(TruthLine.json(sequence: 1, record: unknown).hasSuffix(#""activity":9,"session_start":false}"#))
    }
}
