import BandFirmware
import BandLink
import BandProtocol
import BandWire
import Testing
import UARTFraming

/// A band a scripted ATT conversation runs against: the test plays the reader, sends one PDU at a
/// time and sees every PDU the band sent in answer, in order. Two conformances host the one
/// ``BandServices`` implementation: the Linux band (`SimulatedBand` over a socket pair) and the
/// chip's band (``ChipBand`` on the ``ScriptedBoard``, PDUs in UART frames). Both are configured
/// alike (``ChipBandServiceTests/linuxBand()``: the chip's seed, start, name and ring size), so a
/// conversation written once must get the same bytes from both.
protocol BandUnderTest {
    /// Sends `pdu` and returns the PDUs the band sent in response (possibly none).
    mutating func send(_ pdu: [UInt8]) throws -> [[UInt8]]
    /// Lets `seconds` of band time pass, one second at a time; returns what the band sent meanwhile.
    mutating func advance(seconds: Int) throws -> [[UInt8]]
    /// Lets the band run without new input or time (it sends the next burst of a transfer).
    mutating func poll() throws -> [[UInt8]]
    /// Drops the reader's connection and connects a new one; the band keeps its state and keys.
    mutating func reconnect() throws
    /// Every minute the band recorded since it was made, resets included, in order: its own
    /// truth (Linux: the minute callback; the chip: debug message 0x87).
    var recorded: [(sequence: UInt32, record: MinuteRecord)] { get }
    /// What the band keeps for the next boot (Linux: its flash image; the chip: read back from
    /// its flash pages as its next boot would recover them).
    mutating func stored() -> StoredHistory
    /// Resets the band after it was off for `offFor`: RAM is lost, flash kept, the reader's link
    /// dropped; then a reader connects again. Linux: `reboot()` (`offFor` zero) or a band restored
    /// from its flash image, started `offFor` later; the chip: a new firmware on the same flash,
    /// configured (and given its scenario) again by the host with the band's true time, as
    /// `bandsim serve --firmware` does after every boot.
    mutating func reset(offFor: Duration) throws
    /// Whether the band still holds the reader's link (a band closes it on indication overflow).
    var isConnected: Bool { get }
    /// The band's log lines (the chip has none: nil).
    var logLines: [String]? { get }
}

/// What a band keeps across a reset: its ring's bounds and records, and the paired readers with
/// their acknowledged positions.
struct StoredHistory: Equatable {
    var oldest: UInt32
    var next: UInt32
    /// The records from `oldest` to `next`, in order.
    var records: [MinuteRecord]
    /// The key store's entries, in slot order.
    var readers: [KeyStore.Entry]

    func record(_ sequence: UInt32) -> MinuteRecord? {
        sequence >= oldest && sequence < next ? records[Int(sequence - oldest)] : nil
    }
}

/// How a band under test starts: what the host tells the chip at boot (link 0x10: start time,
/// seed, zone; link 0x12: the scenario) and the Linux band's configuration alike.
struct BandSetup {
    var start = ChipBandServiceTests.start
    var seed = ChipBandServiceTests.seed
    var timeZoneQuarterHours: Int8 = 0
    /// nil: the built-in `day`, which the chip runs when the host sends no scenario.
    var scenario: Scenario?

    /// 2026-11-30T08:00:00Z, a Monday: minute 480 of the day, at a minute's start.
    static let monday0800 = BandInstant(seconds: 1_796_025_600)

    init(start: BandInstant = ChipBandServiceTests.start, seed: UInt64 = ChipBandServiceTests.seed,
         timeZoneQuarterHours: Int8 = 0, scenario: Scenario? = nil) {
        self.start = start
        self.seed = seed
        self.timeZoneQuarterHours = timeZoneQuarterHours
        self.scenario = scenario
    }

    /// At 08:00 UTC on Monday 30 November 2026, running the built-in scenario `name`.
    static func monday(_ name: String, seed: UInt64 = ChipBandServiceTests.seed) -> BandSetup {
        BandSetup(start: monday0800, seed: seed, scenario: Scenario.builtIn(name)!)
    }
}

/// Which band a parameterised conversation runs against.
enum BandKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case linux
    case chip

    var testDescription: String { self == .linux ? "Linux band" : "chip's band" }

    /// A freshly configured band of this kind with a reader connected.
    func make(_ setup: BandSetup = BandSetup()) throws -> any BandUnderTest {
        switch self {
        case .linux: try LinuxBandUnderTest(setup)
        case .chip: ChipBandServiceTests.Chip(setup)
        }
    }
}

/// The Linux band: `SimulatedBand` pumped after each PDU, its socket drained without waiting.
struct LinuxBandUnderTest: BandUnderTest {
    private(set) var band: SimulatedBand
    var reader: SeqPacketLink
    private let setup: BandSetup
    private let observed = Observed()

    /// What the band's callbacks reported (they outlive a restored band).
    private final class Observed {
        var minutes: [(sequence: UInt32, record: MinuteRecord)] = []
        var lines: [String] = []
    }

    init(_ setup: BandSetup = BandSetup()) throws {
        self.setup = setup
        (band, reader) = try ChipBandServiceTests.linuxBand(setup)
        observe()
    }

    private func observe() {
        band.onMinuteRecorded = { [observed] in observed.minutes.append(($0, $1)) }
        band.log = { [observed] in observed.lines.append($0) }
    }

    var recorded: [(sequence: UInt32, record: MinuteRecord)] { observed.minutes }
    var logLines: [String]? { observed.lines }
    var isConnected: Bool { band.isConnected }

    func stored() -> StoredHistory {
        let ring = band.flash.ring
        return StoredHistory(oldest: ring.oldest, next: ring.next, records: (ring.oldest..<ring.next).map { ring.record($0) },
                             readers: band.flash.keys.entries)
    }

    func poll() throws -> [[UInt8]] {
        band.pump()
        return try ChipBandServiceTests.drain(reader)
    }

    mutating func reconnect() throws {
        band.disconnect(reason: "test reconnects")
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        reader = readerSide
        band.connect(bandSide)
    }

    mutating func reset(offFor: Duration) throws {
        if offFor == .zero {
            band.reboot()
            #expect(!band.isConnected, "the radio drops the link at a reboot")
        } else {
            var configuration = ChipBandServiceTests.linuxConfiguration(setup)
            configuration.start = band.trueTime + offFor
            band.disconnect(reason: "the band is switched off")
            band = try SimulatedBand(configuration: configuration, flash: band.flash)
            observe()
            band.advance(by: .zero)   // as the chip ticks its first second when it is configured
        }
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        reader = readerSide
        band.connect(bandSide)
    }

    func send(_ pdu: [UInt8]) throws -> [[UInt8]] {
        try reader.send(pdu)
        band.pump()
        return try ChipBandServiceTests.drain(reader)
    }

    func advance(seconds: Int) throws -> [[UInt8]] {
        var pdus: [[UInt8]] = []
        for _ in 0..<seconds {
            band.advance(by: .seconds(1))
            pdus += try ChipBandServiceTests.drain(reader)
        }
        return pdus
    }
}

extension ChipBandServiceTests.Chip: BandUnderTest {
    mutating func poll() -> [[UInt8]] {
        firmware.poll()
        return take()
    }

    /// Link messages 0x03 (disconnected) and 0x02 (connected), as the host sends them.
    mutating func reconnect() {
        firmware.board.inbound = encodeFrame(.link, [0x03]) + encodeFrame(.link, [0x02])
        firmware.poll()
        _ = take()
    }

    var recorded: [(sequence: UInt32, record: MinuteRecord)] { truth.map { (sequence: $0.0, record: $0.1) } }
    var logLines: [String]? { nil }
    /// The chip cannot hang up the bridge's link; a band that closed it answers nothing until the
    /// next connect message, which this reports.
    var isConnected: Bool { firmware.application.services.map { $0.isConnected && !$0.host.linkClosedByBand } ?? false }

    /// The flash pages read as the next boot reads them (``FlashMinuteLog``, ``FlashStateLog``),
    /// on a copy of the board: nothing of the running firmware is consulted.
    func stored() -> StoredHistory {
        var board = firmware.board
        var ring = FlashMinuteLog(pageSize: board.flashPageSize)
        ring.recover(on: &board)
        var stateLog = FlashStateLog(pageSize: board.flashPageSize)
        let state = stateLog.recover(on: &board)
        let oldest = ring.oldest(capacity: ChipBand.historyCapacity, acknowledged: state.acknowledgedThrough)
        var records: [MinuteRecord] = []
        ring.forEachRecord(on: &board) { sequence, bytes in
            if sequence >= oldest, let record = try? MinuteRecord(parsingAll: bytes) { records.append(record) }
        }
        return StoredHistory(oldest: oldest, next: ring.next, records: records, readers: state.keys)
    }

    mutating func reset(offFor: Duration) {
        let now = setup.start + .milliseconds(Int64(firmware.board.now)) + offFor
        var rebooted = Self(setup, flash: firmware.board.flash, start: now)
        rebooted.truth = truth + rebooted.truth
        self = rebooted
    }
}

/// A scripted conversation with a ``BandUnderTest``, in the style of BlueZ's unit/test-gatt.c:
/// the reader's PDUs and the band's exact answers, in hex.
struct TwinConversation {
    var band: any BandUnderTest
    /// PDUs the band sent that no expectation has taken yet.
    private var waiting: [[UInt8]] = []
    /// Every PDU both ways in order ("> " the reader's, "< " the band's) and each second that
    /// passed ("+1s"): two bands held the same conversation when their transcripts are equal.
    private(set) var transcript: [String] = []

    init(_ kind: BandKind, _ setup: BandSetup = BandSetup()) throws { band = try kind.make(setup) }

    /// Sends `request` (hex); its answers wait for ``expect(_:sourceLocation:)``.
    mutating func send(_ request: String) throws {
        transcript.append("> " + Self.text(hex(request)))
        received(try band.send(hex(request)))
    }

    private mutating func received(_ pdus: [[UInt8]]) {
        transcript += pdus.map { "< " + Self.text($0) }
        waiting += pdus
    }

    /// The next PDU the band sent, or nil.
    mutating func next() -> [UInt8]? { waiting.isEmpty ? nil : waiting.removeFirst() }

    /// Expects the band's next PDU to be exactly `response` (hex).
    mutating func expect(_ response: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let got = next()
        #expect(got.map(Self.text) == Self.text(hex(response)), sourceLocation: sourceLocation)
    }

    /// Sends `request` and expects exactly `response` and nothing else.
    mutating func exchange(_ request: String, _ response: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try send(request)
        expect(response, sourceLocation: sourceLocation)
        expectSilence(sourceLocation: sourceLocation)
    }

    mutating func expectSilence(sourceLocation: SourceLocation = #_sourceLocation) {
        let rest = waiting.map(Self.text)
        waiting.removeAll()
        #expect(rest.isEmpty, "unexpected PDUs \(rest)", sourceLocation: sourceLocation)
    }

    /// Lets `seconds` pass and returns every PDU the band sent meanwhile.
    mutating func advance(seconds: Int) throws -> [[UInt8]] {
        transcript.append("+\(seconds)s")
        received(try band.advance(seconds: seconds))
        defer { waiting.removeAll() }
        return waiting
    }

    /// Forgets the transcript so far (a comparison starts here).
    mutating func restartTranscript() { transcript.removeAll() }

    /// Lets the band run once; what it sent waits for ``next()``.
    mutating func poll() throws { received(try band.poll()) }

    mutating func reconnect() throws {
        expectSilence()
        try band.reconnect()
    }

    /// Resets the band (``BandUnderTest/reset(offFor:)``); what it sent before is dropped with the link.
    mutating func reset(offFor: Duration = .zero) throws {
        waiting.removeAll()
        transcript.append("reset")
        try band.reset(offFor: offFor)
    }

    /// Reads Live Activity (the reader must be authenticated); notifications waiting are dropped.
    mutating func liveActivity(sourceLocation: SourceLocation = #_sourceLocation) throws -> LiveActivity {
        waiting.removeAll()
        try send("0a 2d00")
        let pdu = try #require(waiting.first { $0.first != 0x1B }, "no answer to the Live Activity read", sourceLocation: sourceLocation)
        waiting.removeAll()
        try #require(pdu.first == 0x0B, "Live Activity read answered \(Self.text(pdu))", sourceLocation: sourceLocation)
        return try LiveActivity(parsingAll: Array(pdu.dropFirst()))
    }

    /// Receives an indication on `handle`, confirms it, and returns its value.
    mutating func indication(on handle: UInt16, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        guard let pdu = next() else {
            Issue.record("expected an indication on 0x\(String(handle, radix: 16)), got nothing", sourceLocation: sourceLocation)
            return []
        }
        #expect(pdu.first == 0x1D && pdu.count >= 3 && UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == handle,
                "expected an indication on 0x\(String(handle, radix: 16)), got \(Self.text(pdu))", sourceLocation: sourceLocation)
        try send("1e")
        return Array(pdu.dropFirst(3))
    }

    /// Writes `value` (hex) to the Authentication Control Point, expects the Write Response, and
    /// returns the indicated answer (confirmed).
    mutating func authControl(_ value: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        try send("12 3600 " + value)
        expect("13", sourceLocation: sourceLocation)
        return try indication(on: 0x0036, sourceLocation: sourceLocation)
    }

    /// Pairs as `readerID` (both bands confirm on their own) and returns the key.
    mutating func pair(readerID: UInt64 = 0x1122_3344_5566_7788) throws -> BandKey? {
        try exchange("12 3700 0200", "13")
        return try PairingResponse(parsingAll: authControl(Self.text(PairingRequest(readerID: readerID).encodedBytes()))).key
    }

    /// Runs the challenge–response with `key`; returns the band's answer and the nonce it used.
    mutating func authenticate(readerID: UInt64 = 0x1122_3344_5566_7788, key: BandKey, readerNonce: UInt64 = 42) throws -> (ProofResponse, BandNonce?) {
        try exchange("12 3700 0200", "13")
        let challenge = try ChallengeResponse(parsingAll: authControl(Self.text(ChallengeRequest(readerID: readerID, readerNonce: readerNonce).encodedBytes())))
        guard let nonce = challenge.bandNonce else {
            Issue.record("challenge refused: \(challenge.status)")
            return (ProofResponse(status: challenge.status), nil)
        }
        let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: nonce)
        return (try ProofResponse(parsingAll: authControl(Self.text(ProofRequest(proof: proof).encodedBytes()))), nonce)
    }

    /// Records an issue at the first line where the Linux band's transcript (first) and the
    /// chip's (second) differ, or when one is longer.
    static func expectSameTranscripts(_ transcripts: [[String]], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard transcripts.count == 2 else { Issue.record("\(what): \(transcripts.count) transcripts", sourceLocation: sourceLocation); return }
        let (linux, chip) = (transcripts[0], transcripts[1])
        if let line = (0..<min(linux.count, chip.count)).first(where: { linux[$0] != chip[$0] }) {
            Issue.record("\(what), line \(line): Linux \(linux[line]), chip \(chip[line])", sourceLocation: sourceLocation)
        } else if linux.count != chip.count {
            Issue.record("\(what): \(linux.count) lines on Linux, \(chip.count) on the chip", sourceLocation: sourceLocation)
        }
    }

    static func text(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
}
