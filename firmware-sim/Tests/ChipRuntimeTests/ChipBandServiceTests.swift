import BandFirmware
import BandLink
import BandProtocol
import BandWire
import ChipRuntime
import Testing
import UARTFraming

/// The band's GATT services on the chip (``ChipBand`` over the scripted board, PDUs in UART
/// frames) against the Linux band (`SimulatedBand` over a socket pair) with the same seed and
/// start: one ``BandServices`` implementation, so the same PDUs get the same answers, byte for
/// byte — discovery, reads, refusals, notifications — and pairing, the HMAC challenge and a
/// history transfer with CRC and acknowledgement work on the chip, its records equal to its truth.
@Suite struct ChipBandServiceTests {
    static let start = ChipBandTests.start
    static let seed: UInt64 = 7

    /// The Linux band the chip must match: freshly formatted, the chip's ring size and device
    /// name, the history ID from the seed (deterministic secrets), no history days.
    static func linuxConfiguration(_ setup: BandSetup = BandSetup()) -> BandConfiguration {
        var configuration = BandConfiguration(start: setup.start)
        configuration.seed = setup.seed
        configuration.timeZoneQuarterHours = setup.timeZoneQuarterHours
        if let scenario = setup.scenario { configuration.scenario = scenario }
        configuration.historyCapacity = ChipBand.historyCapacity
        configuration.deterministicSecrets = true
        configuration.deviceName = ChipBand.deviceName
        return configuration
    }

    static func linuxBand(_ setup: BandSetup = BandSetup()) throws -> (SimulatedBand, SeqPacketLink) {
        let band = try SimulatedBand(configuration: linuxConfiguration(setup))
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        band.connect(bandSide)
        // The chip ticks its first second as the configuration arrives: so does this band.
        band.advance(by: .zero)
        return (band, readerSide)
    }

    /// The chip, configured and with a reader connected (link message 0x02).
    struct Chip {
        var firmware = FirmwareRuntime(board: ScriptedBoard(), application: ChipBand())
        var decoder = UARTFrameDecoder()
        /// Debug message 0x87 frames seen so far: the firmware's truth.
        var truth: [(UInt32, MinuteRecord)] = []
        /// What the host configured at this boot (the start: the band's true time at this boot).
        let setup: BandSetup

        /// `flash`: the flash of a chip before its reset (nil: erased); `start`: the time the host
        /// configures the band with.
        init(flash: [UInt8]? = nil, start: BandInstant = ChipBandServiceTests.start) {
            self.init(BandSetup(start: start), flash: flash)
        }

        /// Boots on `flash` (nil: erased); the host sends `setup`'s scenario (link 0x12), then
        /// its start, seed and zone (0x10), then a reader connects (0x02).
        init(_ setup: BandSetup, flash: [UInt8]? = nil, start: BandInstant? = nil) {
            var setup = setup
            if let start { setup.start = start }
            self.setup = setup
            if let flash { firmware.board.flash = flash }
            firmware.start()
            let scenario = setup.scenario.map(ChipScenarioTests.segmentMessages) ?? []
            firmware.board.inbound = scenario.flatMap { encodeFrame(.link, $0) }
                + encodeFrame(.link, ChipBandTests.configure(start: setup.start, seed: setup.seed, zone: setup.timeZoneQuarterHours))
                + encodeFrame(.link, [0x02])
            firmware.poll()
            _ = take()
        }

        /// The ATT PDUs the firmware sent since the last call (truth frames are collected aside).
        mutating func take() -> [[UInt8]] {
            let bytes = firmware.board.outbound
            firmware.board.outbound.removeAll()
            var frames: [(UInt8, [UInt8])] = []
            bytes.withUnsafeBytes { raw in decoder.decode(raw) { channel, payload in frames.append((channel.rawValue, Array(payload))) } }
            var pdus: [[UInt8]] = []
            for (channel, payload) in frames {
                if channel == UARTChannel.att.rawValue { pdus.append(payload) }
                if channel == UARTChannel.debug.rawValue, payload.first == 0x87, payload.count == 21 {
                    let sequence = payload[1...4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    if let record = try? Array(payload[5...]).withUnsafeBytes({ try MinuteRecord(parsingAll: $0) }) { truth.append((sequence, record)) }
                }
            }
            return pdus
        }

        mutating func send(_ pdu: [UInt8]) -> [[UInt8]] {
            firmware.board.inbound = encodeFrame(.att, pdu)
            firmware.poll()
            return take()
        }

        /// Writes `value` to `handle` with a Write Request (hex), expects the Write Response and
        /// returns the PDUs that followed it; an indication among them is confirmed.
        mutating func write(_ handle: String, _ value: [UInt8]) -> [[UInt8]] {
            let pdus = send(hex("12 " + handle) + value)
            #expect(pdus.first == hex("13"), "write \(handle): \(pdus)")
            if pdus.contains(where: { $0.first == 0x1D }) { _ = send(hex("1e")) }
            return Array(pdus.dropFirst())
        }

        /// The value of the first indication among `pdus`.
        static func indicated(_ pdus: [[UInt8]]) throws -> [UInt8] {
            Array(try #require(pdus.first { $0.first == 0x1D }).dropFirst(3))
        }

        /// Pairs (the band confirms on its own) and returns the key.
        mutating func pair(_ readerID: UInt64) throws -> BandKey {
            _ = write("3700", [0x02, 0x00])
            return try #require(try PairingResponse(parsingAll: Self.indicated(write("3600", PairingRequest(readerID: readerID).encodedBytes()))).key)
        }

        /// The challenge–response with `key`; returns the band's answer.
        mutating func authenticate(_ readerID: UInt64, key: BandKey) throws -> ProofResponse {
            _ = write("3700", [0x02, 0x00])
            let challenge = try ChallengeResponse(parsingAll: Self.indicated(write("3600", ChallengeRequest(readerID: readerID, readerNonce: 42).encodedBytes())))
            let nonce = try #require(challenge.bandNonce)
            let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: 42, bandNonce: nonce)
            return try ProofResponse(parsingAll: Self.indicated(write("3600", ProofRequest(proof: proof).encodedBytes())))
        }

        /// Receives a history transfer whose first PDUs are `first`: the records of its History
        /// Data packets, their CRC-32, and Transfer Complete (confirmed); each poll sends the next
        /// burst (at most 8 packets while the outbox has room).
        mutating func receiveTransfer(startingWith first: [[UInt8]]) throws -> (records: [MinuteRecord], crc: UInt32, complete: HistoryTransferComplete?) {
            var pending = first
            var records: [MinuteRecord] = []
            var crc = CRC32()
            for _ in 0..<200 {
                if pending.isEmpty {
                    firmware.poll()
                    pending = take()
                }
                let pdus = pending
                pending = []
                for pdu in pdus {
                    if pdu.first == 0x1B {
                        let packet = Array(pdu.dropFirst(5))
                        packet.withUnsafeBytes { crc.update($0) }
                        for offset in stride(from: 0, to: packet.count, by: MinuteRecord.size) {
                            records.append(try MinuteRecord(parsingAll: Array(packet[offset..<offset + MinuteRecord.size])))
                        }
                    } else if pdu.first == 0x1D {
                        _ = send(hex("1e"))
                        return (records, crc.value, try HistoryTransferComplete(parsingAll: Array(pdu.dropFirst(3))))
                    }
                }
            }
            return (records, crc.value, nil)
        }

        mutating func advance(seconds: Int) -> [[UInt8]] {
            var pdus: [[UInt8]] = []
            for _ in 0..<seconds {
                firmware.board.now += 1_000
                firmware.poll()
                pdus += take()
            }
            return pdus
        }
    }

    static func drain(_ reader: SeqPacketLink) throws -> [[UInt8]] {
        var pdus: [[UInt8]] = []
        while let pdu = try reader.receive(timeout: .zero) { pdus.append(pdu) }
        return pdus
    }

    /// A reader's session without pairing: discovery of every service and characteristic, reads of
    /// every readable value, the refusals (unknown handle, not permitted, not authenticated, bad
    /// lengths, unknown opcode), Current Time written, Heart Rate and RSC subscribed for a minute.
    static let script: [String] = [
        "10 0100 ffff 0028", "10 2400 ffff 0028", "10 2b00 ffff 0028", "10 3800 ffff 0028",
        "08 0100 ffff 0328", "08 0c00 ffff 0328", "08 2000 ffff 0328", "08 3000 ffff 0328",
        "04 0100 0a00", "04 2b00 ffff", "06 0100 ffff 0018",
        "0a 0300", "0a 0400", "0a 0c00", "0a 0e00", "0a 1000", "0a 1200", "0a 1500", "0a 1c00", "0a 2400",
        "0a 2700", "0a 2a00", "0a 2d00", "0a 3300", "0a 9900", "0a 0000", "0a 03",
        "0c 0300 0400", "12 0300 41", "12 1e00 01", "12 1e00 02", "12 2e00 0100", "12 3700 0300",
        "12 2a00 04", "12 2a00 0400", "ff 00", "0b", "52 1e00 01",
        "12 2a00 0804", "12 2700 ea070b1e0a000001000001",
        "12 1600 0100", "12 1a00 0100", "12 2200 0100", "12 2800 0100",
    ]

    @Test func theChipAnswersAReadersSessionByteForByteAsTheLinuxBand() throws {
        let (band, reader) = try Self.linuxBand()
        var chip = Chip()
        for request in Self.script {
            try reader.send(hex(request))
            band.pump()
            let linux = try Self.drain(reader)
            let onChip = chip.send(hex(request))
            #expect(onChip == linux, "request \(request)")
            // Commands (Write Command 0x52, an opcode with the command bit) and a client sending a
            // server's PDU (a Read Response) get no answer; every request gets one (subscribing to
            // Battery Level brings its value at once).
            let unanswered = ["52", "ff", "0b"].contains { request.hasPrefix($0) }
            #expect(linux.count == (unanswered ? 0 : request == "12 1600 0100" ? 2 : 1), "request \(request): \(linux.count) PDUs")
        }
        // A minute of notifications (Heart Rate, RSC, Current Time, Battery) as they fall due.
        for second in 1...60 {
            band.advance(by: .seconds(1))
            let linux = try Self.drain(reader)
            let onChip = chip.advance(seconds: 1)
            #expect(onChip == linux, "second \(second)")
        }
    }

    @Test func theMTUExchangeOffersTheChipsTransmitBuffer() throws {
        var chip = Chip()
        #expect(chip.send(hex("02 0002")) == [hex("03 f700")], "ATT_MTU 247 on the chip (517 on Linux)")
        // After the exchange, a long read is cut at 246 bytes rather than 22.
        let name = chip.send(hex("0a 0300"))
        #expect(name.first?.first == 0x0B)
    }

    /// Pairing, the challenge–response with the key it gave, a history transfer with CRC-32 and an
    /// acknowledgement, on the chip: the records received equal the firmware's truth, and the
    /// acknowledged records are erased.
    @Test func pairingTheChallengeAndAHistoryTransferWorkOnTheChip() throws {
        var chip = Chip()
        _ = chip.advance(seconds: 10 * 60)
        let readerID: UInt64 = 0x1122_3344_5566_7788
        #expect(chip.send(hex("12 3700 0200")) == [hex("13")])
        let pairing = chip.send(hex("12 3600") + PairingRequest(readerID: readerID).encodedBytes())
        #expect(pairing.count == 2 && pairing.first == hex("13"))
        let pairingResponse = try PairingResponse(parsingAll: Array(pairing[1].dropFirst(3)))
        let key = try #require(pairingResponse.key)
        #expect(chip.send(hex("1e")).isEmpty)
        #expect(chip.firmware.application.core?.flash.keys.key(for: readerID) == key, "the key is in the chip's key store")

        // A new connection: the challenge with the key authenticates it.
        chip.firmware.board.inbound = encodeFrame(.link, [0x03]) + encodeFrame(.link, [0x02])
        chip.firmware.poll()
        _ = chip.take()
        #expect(chip.send(hex("0a 2d00")) == [hex("01 0a 2d00 80")], "a new connection starts unauthenticated")
        #expect(chip.send(hex("12 3700 0200")) == [hex("13")])
        let challenge = chip.send(hex("12 3600") + ChallengeRequest(readerID: readerID, readerNonce: 42).encodedBytes())
        let nonce = try #require(try ChallengeResponse(parsingAll: Array(challenge[1].dropFirst(3))).bandNonce)
        #expect(chip.send(hex("1e")).isEmpty)
        let wrong = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: 43, bandNonce: nonce)
        let refused = chip.send(hex("12 3600") + ProofRequest(proof: wrong).encodedBytes())
        #expect(try ProofResponse(parsingAll: Array(refused[1].dropFirst(3))).status == .wrongProof)
        _ = chip.send(hex("1e"))
        let challenge2 = chip.send(hex("12 3600") + ChallengeRequest(readerID: readerID, readerNonce: 42).encodedBytes())
        let nonce2 = try #require(try ChallengeResponse(parsingAll: Array(challenge2[1].dropFirst(3))).bandNonce)
        _ = chip.send(hex("1e"))
        let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: 42, bandNonce: nonce2)
        let proved = chip.send(hex("12 3600") + ProofRequest(proof: proof).encodedBytes())
        let proofResponse = try ProofResponse(parsingAll: Array(proved[1].dropFirst(3)))
        #expect(proofResponse.status == .success)
        #expect(proofResponse.bandProof.map { BandAuthenticator.verify($0, equals: BandAuthenticator.bandProof(key: key, readerID: readerID, readerNonce: 42, bandNonce: nonce2)) } == true)
        _ = chip.send(hex("1e"))

        // History: subscribe, fetch from 0, collect the packets, check the CRC, acknowledge.
        #expect(chip.send(hex("12 3100 0200")) == [hex("13")])
        #expect(chip.send(hex("12 3400 0100")) == [hex("13")])
        let pdus = chip.send(hex("12 3000") + HistoryRequest.fetch(.init(cursor: 0, maxCount: 0)).encodedBytes())
        #expect(pdus.first == hex("13"))
        let fetch = try HistoryFetchResponse(parsingAll: Array(pdus[1].dropFirst(3)))
        #expect(fetch.status == .success && fetch.firstSequence == 0 && fetch.count == UInt32(chip.truth.count))
        let (records, crc, complete) = try chip.receiveTransfer(startingWith: chip.send(hex("1e")))
        let done = try #require(complete)
        #expect(done.status == .success && done.recordCount == fetch.count && done.crc == crc)
        #expect(records == chip.truth.map(\.1), "the transfer carries exactly the firmware's truth")
        let acknowledged = chip.send(hex("12 3000") + HistoryRequest.acknowledge(.init(endSequence: fetch.count, crc: done.crc)).encodedBytes())
        let acknowledgement = try HistoryAcknowledgeResponse(parsingAll: Array(acknowledged[1].dropFirst(3)))
        #expect(acknowledgement.status == .success && acknowledgement.oldestSequence == fetch.count)
    }

    /// A firmware reset in the middle of a history transfer loses nothing and duplicates nothing
    /// (the band only erases what was acknowledged, and the flash outlives the reset), on the
    /// scripted board: the chip is reset (a new firmware on the same
    /// flash) after the first packets of a transfer the reader never acknowledged; after the reset
    /// the key still authenticates, and a fetch from the reader's cursor brings every record —
    /// those before the reset from the flash pages, the new boot's after them — each once, in
    /// sequence, equal to what the firmware reported as recorded.
    @Test func aResetInTheMiddleOfAHistoryTransferLosesNothingAndDuplicatesNothing() throws {
        let readerID: UInt64 = 0x0102_0304_0506_0708
        var before = Chip()
        _ = before.advance(seconds: 30 * 60)
        let key = try before.pair(readerID)
        _ = before.write("3100", [0x02, 0x00])
        _ = before.write("3400", [0x01, 0x00])
        let fetch = try HistoryFetchResponse(parsingAll: Chip.indicated(before.write("3000", HistoryRequest.fetch(.init(cursor: 0)).encodedBytes())))
        // At ATT_MTU 23 a packet holds one record and a poll sends at most 8: after the confirmation's
        // poll and one more, 16 of the ≥ 29 records are out when the chip resets.
        #expect(fetch.status == .success && fetch.count > 16)
        before.firmware.poll()
        #expect(before.take().contains { $0.first == 0x1B }, "the transfer is under way")

        var after = Chip(flash: before.firmware.board.flash, start: Self.start + .seconds(31 * 60))
        #expect(after.firmware.application.services?.bootEpoch == 2, "a new boot")
        #expect(try after.authenticate(readerID, key: key).status == .success, "the key survived the reset")
        _ = after.advance(seconds: 5 * 60)
        _ = after.write("3100", [0x02, 0x00])
        _ = after.write("3400", [0x01, 0x00])
        // Confirmed by hand: the poll after the confirmation already sends the first packets.
        let fetched = after.send(hex("12 3000") + HistoryRequest.fetch(.init(cursor: 0)).encodedBytes())
        #expect(fetched.first == hex("13"))
        let again = try HistoryFetchResponse(parsingAll: Chip.indicated(fetched))
        let (records, crc, complete) = try after.receiveTransfer(startingWith: after.send(hex("1e")))
        let done = try #require(complete)
        let truth = before.truth + after.truth
        #expect(again.firstSequence == 0 && again.count == UInt32(truth.count), "every minute of both boots is still there")
        #expect(truth.map(\.0) == Array(0..<UInt32(truth.count)), "sequence numbers continue across the reset")
        #expect(records == truth.map(\.1), "each record once, as the firmware recorded it")
        #expect(done.status == .success && done.crc == crc)
        let acknowledged = try HistoryAcknowledgeResponse(parsingAll: Chip.indicated(
            after.write("3000", HistoryRequest.acknowledge(.init(endSequence: again.count, crc: done.crc)).encodedBytes())))
        #expect(acknowledged.status == .success)
    }
}
