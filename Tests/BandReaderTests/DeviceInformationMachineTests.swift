import BandGATTClient
import BandLink
import BandProtocol
import BandReader
import BandWire
import Testing

/// Device Information as scripted conversations: the values the device answers in, the next
/// read and the result out, without a link.
@Suite struct DeviceInformationMachineTests {
    typealias Field = DeviceInformationMachine.Field

    enum Answer {
        case value([UInt8])
        case readError
    }

    static func line(_ action: DeviceInformationMachine.Action) -> String {
        switch action {
        case .read(let field, let handle): return "read \(field) at \(handle)"
        case .report(.anomaly(let what)): return "anomaly: \(what)"
        case .report(let event): return "report \(event)"
        case .finished(let device, let battery):
            let fields = [device.name, device.manufacturer, device.model, device.serialNumber, device.hardwareRevision,
                          device.firmwareRevision, device.softwareRevision].map { $0 ?? "-" }
            return "finished \(fields.joined(separator: "/")) battery \(battery.map(String.init) ?? "-")"
        case .fail(let error): return "fail: \(error)"
        }
    }

    static let everything: [Field: UInt16] = [.name: 3, .manufacturer: 0x20, .model: 0x22, .serialNumber: 0x24,
                                              .hardwareRevision: 0x26, .firmwareRevision: 0x28, .softwareRevision: 0x2A, .battery: 0x30]

    /// One conversation per row: the readable fields, then each answer and the lines after it.
    static let conversations: [(String, [Field: UInt16], [(Answer, [String])])] = [
        ("every field, in order", everything, [
            (.value(Array("BK-1".utf8)), ["read manufacturer at 32"]),
            (.value(Array("BandKit".utf8)), ["read model at 34"]),
            (.value(Array("Band".utf8)), ["read serialNumber at 36"]),
            (.value(Array("S1".utf8)), ["read hardwareRevision at 38"]),
            (.value(Array("1".utf8)), ["read firmwareRevision at 40"]),
            (.value(Array("2.0".utf8)), ["read softwareRevision at 42"]),
            (.value(Array("3".utf8)), ["read battery at 48"]),
            (.value([87]), ["finished BK-1/BandKit/Band/S1/1/2.0/3 battery 87"]),
        ]),
        ("only what is there is read", [.manufacturer: 0x20, .battery: 0x30], [
            (.value(Array("Strapworks".utf8)), ["read battery at 48"]),
            (.value([50]), ["finished -/Strapworks/-/-/-/-/- battery 50"]),
        ]),
        ("a string that is not UTF-8 is an anomaly and left out", [.name: 3, .model: 0x22], [
            (.value([0xFF, 0xFE]), ["anomaly: 2a00 is not UTF-8: invalid_value in UTF-8 string at byte offset 0", "read model at 34"]),
            (.value(Array("HRM-2".utf8)), ["finished -/-/HRM-2/-/-/-/- battery -"]),
        ]),
        ("a malformed battery level is an anomaly and left out", [.battery: 0x30], [
            (.value([0xC8]), ["anomaly: battery level c8 is malformed: invalid_value in battery level at byte offset 0"]),
        ]),
        ("a read error ends the session with the link's error", [.name: 3, .model: 0x22], [
            (.readError, ["fail: reading device information: Read Request failed on handle 0x0003: Read Not Permitted (0x02)"]),
        ]),
    ]

    @Test(arguments: conversations.indices)
    func deviceInformation(_ row: Int) {
        let (name, readable, script) = Self.conversations[row]
        var machine = DeviceInformationMachine(readable: readable)
        let first = Field.allCases.first { readable[$0] != nil }!
        #expect(machine.start().map(Self.line) == ["read \(first) at \(readable[first]!)"], "\(name): start")
        for (index, (answer, expected)) in script.enumerated() {
            let actions: [DeviceInformationMachine.Action]
            switch answer {
            case .value(let bytes): actions = machine.valueRead(bytes)
            case .readError:
                actions = machine.readFailed(.gatt(.attError(request: .readRequest, handle: 3, code: .readNotPermitted), during: .deviceInformation))
            }
            let lines = actions.map(Self.line)
            // The last line of a malformed battery row is "finished"; only the anomaly is pinned.
            #expect(Array(lines.prefix(expected.count)) == expected, "\(name): step \(index): \(lines)")
        }
    }

    @Test func nothingReadableFinishesAtOnce() {
        let machine = DeviceInformationMachine(readable: [:])
        #expect(machine.start().map(Self.line) == ["finished -/-/-/-/-/-/- battery -"])
    }
}
