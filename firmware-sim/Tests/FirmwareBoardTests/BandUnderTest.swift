import BandFirmware
import BandLink
import BandWire
import Testing

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
}

/// Which band a parameterised conversation runs against.
enum BandKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case linux
    case chip

    var testDescription: String { self == .linux ? "Linux band" : "chip's band" }

    /// A freshly configured band of this kind with a reader connected.
    func make() throws -> any BandUnderTest {
        switch self {
        case .linux: try LinuxBandUnderTest()
        case .chip: ChipBandServiceTests.Chip()
        }
    }
}

/// The Linux band: `SimulatedBand` pumped after each PDU, its socket drained without waiting.
struct LinuxBandUnderTest: BandUnderTest {
    let band: SimulatedBand
    let reader: SeqPacketLink

    init() throws { (band, reader) = try ChipBandServiceTests.linuxBand() }

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

extension ChipBandServiceTests.Chip: BandUnderTest {}

/// A scripted conversation with a ``BandUnderTest``, in the style of BlueZ's unit/test-gatt.c:
/// the reader's PDUs and the band's exact answers, in hex.
struct TwinConversation {
    var band: any BandUnderTest
    /// PDUs the band sent that no expectation has taken yet.
    private var waiting: [[UInt8]] = []

    init(_ kind: BandKind) throws { band = try kind.make() }

    /// Sends `request` (hex); its answers wait for ``expect(_:sourceLocation:)``.
    mutating func send(_ request: String) throws {
        waiting += try band.send(hex(request))
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
        let pdus = waiting + (try band.advance(seconds: seconds))
        waiting.removeAll()
        return pdus
    }

    static func text(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }
}
