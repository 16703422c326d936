import BandFirmware
import BandLink
import BandProtocol
import BandTestSupport
import BandWire
import Testing

/// 2026-11-30T08:00:00Z, a Monday.
let testStart = BandInstant(seconds: 1_796_025_600)

func testConfiguration(seed: UInt64 = 7, scenario: String = "walk") -> BandConfiguration {
    var configuration = BandConfiguration(start: testStart)
    configuration.seed = seed
    configuration.scenario = Scenario.builtIn(scenario)!
    configuration.deterministicSecrets = true
    configuration.historyCapacity = 10_080
    return configuration
}

/// A scripted ATT conversation with a simulated band over `socketpair(AF_UNIX, SOCK_SEQPACKET)`,
/// in the style of BlueZ's unit/test-gatt.c: the test plays the reader, byte for byte.
final class Conversation {
    let band: SimulatedBand
    private(set) var reader: SeqPacketLink
    var log: [String] = []

    init(_ configuration: BandConfiguration = testConfiguration(), flash: FlashImage? = nil) throws {
        band = try SimulatedBand(configuration: configuration, flash: flash)
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        reader = readerSide
        band.log = { [unowned self] in self.log.append($0) }
        band.connect(bandSide)
    }

    /// Drops the link and connects a new one (the band keeps its state, as after a radio loss).
    func reconnect() throws {
        band.disconnect(reason: "test reconnects")
        let (bandSide, readerSide) = try SeqPacketLink.pair()
        reader = readerSide
        band.connect(bandSide)
    }

    /// Sends one PDU (hex) and lets the band handle it.
    func send(_ hex: String) throws {
        try reader.send(bytes(hex))
        band.pump()
    }

    /// The next PDU the band sent, or nil.
    func next() throws -> [UInt8]? {
        try reader.receive(timeout: .zero)
    }

    /// Expects the band's next PDU to be exactly `hex`.
    func expect(_ hex: String, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try next()
        #expect(got.map(Hex.encode) == Hex.encode(bytes(hex)), comment, sourceLocation: sourceLocation)
    }

    /// Sends `request` and expects exactly `response` back.
    func exchange(_ request: String, _ response: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try send(request)
        try expect(response, sourceLocation: sourceLocation)
    }

    func expectSilence(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let got = try next()
        #expect(got == nil, "unexpected PDU \(got.map(Hex.encode) ?? "")", sourceLocation: sourceLocation)
    }

    /// Receives an indication on `handle`, confirms it, and returns its value.
    func indication(on handle: UInt16, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        guard let pdu = try next() else {
            Issue.record("expected an indication on 0x\(String(handle, radix: 16)), got nothing", sourceLocation: sourceLocation)
            return []
        }
        #expect(pdu.first == 0x1D && pdu.count >= 3 && UInt16(pdu[1]) | UInt16(pdu[2]) << 8 == handle,
                "expected an indication on 0x\(String(handle, radix: 16)), got \(Hex.encode(pdu))", sourceLocation: sourceLocation)
        try send("1e")
        return Array(pdu.dropFirst(3))
    }

    /// Every PDU waiting, in order.
    func drain() throws -> [[UInt8]] {
        var all: [[UInt8]] = []
        while let pdu = try next() { all.append(pdu) }
        return all
    }

    /// Pairs as `readerID` (the band must run `--confirm auto`) and returns the key.
    @discardableResult
    func pair(readerID: UInt64 = 0x1122_3344_5566_7788) throws -> BandKey? {
        try exchange("12 3700 0200", "13")
        try exchange("12 3600 " + Hex.encode(PairingRequest(readerID: readerID).encodedBytes()), "13")
        let response = try PairingResponse(parsingAll: try indication(on: Handles.authControlPoint))
        return response.key
    }

    /// Runs the challenge–response with `key` and returns the band's response.
    func authenticate(readerID: UInt64 = 0x1122_3344_5566_7788, key: BandKey, readerNonce: UInt64 = 42) throws -> ProofResponse {
        try send("12 3700 0200")
        _ = try next()
        try exchange("12 3600 " + Hex.encode(ChallengeRequest(readerID: readerID, readerNonce: readerNonce).encodedBytes()), "13")
        let challenge = try ChallengeResponse(parsingAll: try indication(on: Handles.authControlPoint))
        guard let nonce = challenge.bandNonce else {
            Issue.record("challenge refused: \(challenge.status)")
            return ProofResponse(status: challenge.status)
        }
        let proof = BandAuthenticator.readerProof(key: key, readerID: readerID, readerNonce: readerNonce, bandNonce: nonce)
        try exchange("12 3600 " + Hex.encode(ProofRequest(proof: proof).encodedBytes()), "13")
        return try ProofResponse(parsingAll: try indication(on: Handles.authControlPoint))
    }
}

/// The band's fixed handles (BandAttributeTable), spelled out so a test fails if they move.
enum Handles {
    static let deviceName: UInt16 = 0x0003
    static let batteryLevel: UInt16 = 0x0015
    static let heartRateMeasurement: UInt16 = 0x0019
    static let heartRateCCCD: UInt16 = 0x001A
    static let heartRateControlPoint: UInt16 = 0x001E
    static let rscMeasurement: UInt16 = 0x0021
    static let currentTime: UInt16 = 0x0027
    static let localTimeInformation: UInt16 = 0x002A
    static let liveActivity: UInt16 = 0x002D
    static let liveActivityCCCD: UInt16 = 0x002E
    static let historyControlPoint: UInt16 = 0x0030
    static let historyControlPointCCCD: UInt16 = 0x0031
    static let historyData: UInt16 = 0x0033
    static let historyDataCCCD: UInt16 = 0x0034
    static let authControlPoint: UInt16 = 0x0036
    static let authControlPointCCCD: UInt16 = 0x0037
}

