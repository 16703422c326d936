import BandGATTClient
import BandLink
import BandProtocol
import BandReader
import BandWire
import Testing

/// `band pair` as scripted conversations: what the device is and what the band answers in, the
/// actions BandReaderService performs out, without a link, a keystore or a thread.
@Suite struct PairingMachineTests {
    static let key = BandKey((0..<16).map { UInt8($0) })
    static let device = BandDeviceInfo(name: "BK-1", manufacturer: "BandKit", serialNumber: "S1")

    enum Event {
        case readerID(UInt64)
        case answered(PairingResponse)
        case device
        case stop
        case linkLost
    }

    static func line(_ action: PairingMachine.Action) -> String {
        switch action {
        case .chooseReaderID: return "choose reader ID"
        case .sendPairingRequest(let request): return "pair \(String(request.readerID, radix: 16))"
        case .readDeviceInformation: return "read device"
        case .report(.paired(let readerID)): return "report paired \(String(readerID, radix: 16))"
        case .report(let event): return "report \(event)"
        case .save(let readerID, let key, let device, let kind):
            return "save \(String(readerID, radix: 16)) key \(key.count) B, \(device.serialNumber ?? "-"), \(kind.rawValue)"
        case .stopped: return "stopped"
        case .fail(let error): return "fail: \(error)"
        }
    }

    /// One conversation per row: the device's kind, then each event with the lines expected after it.
    static let conversations: [(String, BandKind, [(Event, [String])])] = [
        ("a band pairs, keeping this host's reader ID", .bandkit, [
            (.readerID(0xab), ["pair ab"]),
            (.answered(PairingResponse(status: .success, key: key)), ["report paired ab", "read device"]),
            (.device, ["save ab key 16 B, S1, bandkit"]),
        ]),
        ("a band that refuses stores nothing", .bandkit, [
            (.readerID(0xab), ["pair ab"]),
            (.answered(PairingResponse(status: .denied)), ["fail: the band refused authentication: pairing denied"]),
        ]),
        ("a band locked out stores nothing", .bandkit, [
            (.readerID(7), ["pair 7"]),
            (.answered(PairingResponse(status: .lockedOut)), ["fail: the band refused authentication: locked out"]),
        ]),
        ("a disconnect mid-pairing stores nothing", .bandkit, [
            (.readerID(7), ["pair 7"]),
            (.linkLost, ["fail: pairing: link: link closed"]),
        ]),
        ("a stop while the wearer is asked stores nothing", .bandkit, [
            (.readerID(7), ["pair 7"]),
            (.stop, ["stopped"]),
        ]),
        ("a watch gets a bond-only entry without a key exchange", .infinitime, [
            (.device, ["save 0 key 0 B, S1, infinitime"]),
        ]),
        ("a strap gets a bond-only entry too", .heartRateStrap, [
            (.device, ["save 0 key 0 B, S1, hr-strap"]),
        ]),
    ]

    @Test(arguments: conversations.indices)
    func pairing(_ row: Int) {
        let (name, kind, script) = Self.conversations[row]
        var machine = PairingMachine(kind: kind)
        #expect(machine.start().map(Self.line) == [kind == .bandkit ? "choose reader ID" : "read device"], "\(name): start")
        for (index, (event, expected)) in script.enumerated() {
            let actions: [PairingMachine.Action]
            switch event {
            case .readerID(let id): actions = machine.readerIDChosen(id)
            case .answered(let response): actions = machine.pairingAnswered(response)
            case .device: actions = machine.deviceRead(Self.device)
            case .stop: actions = machine.stopRequested()
            case .linkLost: actions = machine.linkFailed(.gatt(.link(.closed), during: .pairing))
            }
            #expect(actions.map(Self.line) == expected, "\(name): step \(index)")
        }
    }
}
