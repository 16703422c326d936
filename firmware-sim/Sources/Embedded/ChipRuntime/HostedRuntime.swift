import BandATT
import BandGATTServer
import BandHCI
import BandLEHost
import BandWire

/// The chip as a Bluetooth peripheral on its own: its UART speaks H4 to a standard controller
/// (Zephyr's `hci_uart`, a CYW43, BlueZ's btvirt, Bumble) through BandLEHost's ``LEHost``, with
/// the shared ``GATTServer`` over the core's ``BoardAttributeSource`` on top and the bonds in
/// flash pages (``ChipBondStore``). What the host reports (bring-up, links, the passkey to show)
/// goes to the board's debug port as text lines.
///
/// The other runtime, ``FirmwareRuntime``, is the bridge build: its UART carries link messages
/// and ATT frames to `bandsim serve --firmware`, which does the Bluetooth on Linux. Each image
/// links one of the two (firmware-sim/board/build.sh, `--hci`).
///
/// Nothing is allocated after ``start()``: the host's memory (``LEHostMemory``) is allocated there
/// once, and the UART is drained through a buffer on the stack.
public struct HostedRuntime<B: Board> {
    public var io: ChipHostIO<B>
    public private(set) var host: LEHost<BoardAttributeSource>
    public var source = BoardAttributeSource()
    private var allocationsAtStartUp: UInt32 = 0

    /// ATT_MTU the hosted image offers (the BLE 4.2 data-length maximum payload less L2CAP).
    public static var attMTU: Int { 247 }

    /// Start-up: the host's memory, its advertising (name, Heart Rate and the band's service), the
    /// bonds recovered from flash.
    public init(board: B, name: StaticString = "BandKit M4") {
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: LEHostMemory.size(attMTU: Self.attMTU), alignment: 8)
        let services = Self.advertisedServices
        let configuration = services.span.withUnsafeBufferPointer { uuids in
            name.withUTF8Buffer { text in
                LEHostConfiguration.band(name: UnsafeRawBufferPointer(text), services: uuids, attMTU: Self.attMTU, ioCapability: 0x00)
            }
        }
        host = LEHost(configuration: configuration, memory: LEHostMemory(region: memory, attMTU: Self.attMTU))
        io = ChipHostIO(bonds: ChipBondStore(board: board))
    }

    /// Heart Rate and the band's activity service (BandProtocol's `BandActivityService.service`),
    /// as `bandsim serve` advertises them.
    public static var advertisedServices: InlineArray<2, BluetoothUUID> {
        [BluetoothUUID(0x180D), BluetoothUUID(high: 0xB5C0_0001_4E2F_4B1A, low: 0x9A6C_2D1F_0E8B_7A36)]
    }

    /// Says which build this is and starts the controller's bring-up (HCI Reset …).
    public mutating func start() {
        var line = DebugLine("hosted: BLE host on H4, ")
        line.append(decimal: UInt32(io.bonds.count))
        line.append(" bond(s) in flash, ")
        line.append(decimal: io.bonds.damagedSlots)
        line.append(" damaged slot(s)")
        line.write(to: &io.bonds.board)
        host.start(now: now(), io: &io)
        allocationsAtStartUp = io.bonds.board.heapAllocationCount()
    }

    /// The MCU's main loop.
    public mutating func run() -> Never {
        while true {
            poll()
            io.bonds.board.waitForEvent()
        }
    }

    /// Feeds the host what the UART holds and checks its time-outs.
    public mutating func poll() {
        var chunk = InlineArray<64, UInt8>(repeating: 0)
        var span = chunk.mutableSpan
        span.withUnsafeMutableBytes { raw in
            while true {
                var count = 0
                while count < raw.count, let byte = io.bonds.board.receiveByte() {
                    raw[count] = byte
                    count += 1
                }
                if count == 0 { break }
                host.receive(UnsafeRawBufferPointer(rebasing: raw[0..<count]), now: now(), source: &source, io: &io)
            }
        }
        host.tick(now: now(), io: &io)
    }

    /// Heap allocations since ``start()`` (0 on a sound image).
    public mutating func allocationsAfterStartUp() -> UInt32 { io.bonds.board.heapAllocationCount() &- allocationsAtStartUp }

    private mutating func now() -> UInt32 { UInt32(truncatingIfNeeded: io.bonds.board.uptimeMilliseconds()) }
}

/// The hosted runtime's ``LEHostIO``: H4 packets out of the board's UART, events as debug lines,
/// bonds in flash. The bond store holds the board (saving a bond writes flash).
public struct ChipHostIO<B: Board>: LEHostIO {
    public var bonds: ChipBondStore<B>

    public init(bonds: ChipBondStore<B>) { self.bonds = bonds }

    public mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) { bonds.board.transmit(h4Packet) }

    public mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) {
        guard var line = Self.line(for: event) else { return }
        line.write(to: &bonds.board)
    }

    /// The debug port's line for `event`; nil for those not worth one (GATT events, answers to a
    /// connection parameter request).
    public static func line<WriteEffect>(for event: LEHostEvent<WriteEffect>) -> DebugLine? {
        var line: DebugLine
        switch event {
        case .ready(let info):
            line = DebugLine("hosted: controller ready, address ")
            line.append(hex: info.address.value, digits: 12)
            line.append(", ACL ")
            line.append(decimal: UInt32(info.aclPacketLength))
            line.append(" B x ")
            line.append(decimal: UInt32(info.aclPacketCount))
        case .failed(let error):
            line = DebugLine("hosted: stopped: ")
            Self.describe(error, into: &line)
        case .controllerError(let error):
            line = DebugLine("hosted: controller error: ")
            Self.describe(error, into: &line)
        case .advertising:
            line = DebugLine("hosted: advertising")
        case .connected(let handle, let peer, let interval, _, _):
            line = DebugLine("hosted: connected, handle ")
            line.append(decimal: UInt32(handle))
            line.append(", central ")
            line.append(hex: peer.address.value, digits: 12)
            line.append(", interval ")
            line.append(decimal: UInt32(interval))
        case .disconnected(let handle, let reason):
            line = DebugLine("hosted: disconnected, handle ")
            line.append(decimal: UInt32(handle))
            line.append(", reason 0x")
            line.append(hex: UInt64(reason.rawValue), digits: 2)
        case .mtuChanged(let mtu):
            line = DebugLine("hosted: ATT_MTU ")
            line.append(decimal: UInt32(mtu))
        case .dataLengthChanged(let transmitOctets, let receiveOctets):
            line = DebugLine("hosted: data length ")
            line.append(decimal: UInt32(transmitOctets))
            line.append(" B out, ")
            line.append(decimal: UInt32(receiveOctets))
            line.append(" B in")
        case .displayPasskey(let passkey):
            line = DebugLine("hosted: passkey ")
            Self.appendPasskey(passkey, into: &line)
        case .pairingFailed(let failure):
            line = DebugLine("hosted: pairing failed, reason 0x")
            line.append(hex: UInt64(failure.reason), digits: 2)
        case .pairingThrottled(let wait):
            line = DebugLine("hosted: too many wrong passkeys, pairing refused for ")
            line.append(decimal: wait)
            line.append(" ms")
        case .encrypted(let handle):
            line = DebugLine("hosted: encrypted, handle ")
            line.append(decimal: UInt32(handle))
        case .bonded(let bond, let saved):
            line = DebugLine(saved ? "hosted: bonded with " : "hosted: bond NOT saved (flash) with ")
            line.append(hex: bond.peer.address.value, digits: 12)
        case .dropped:
            line = DebugLine("hosted: dropped bytes from the controller")
        case .gatt, .connectionParametersAnswered:
            return nil
        }
        return line
    }

    /// Six digits, zero-padded, as a band's display shows a passkey.
    static func appendPasskey(_ passkey: UInt32, into line: inout DebugLine) {
        var divisor: UInt32 = 100_000
        while divisor > 1, passkey < divisor {
            line.append("0")
            divisor /= 10
        }
        line.append(decimal: passkey)
    }

    static func describe(_ error: LEHostError, into line: inout DebugLine) {
        switch error {
        case .controllerRefused(let opcode, let status):
            line.append("opcode 0x")
            line.append(hex: UInt64(opcode.rawValue), digits: 4)
            line.append(" refused, status 0x")
            line.append(hex: UInt64(status.rawValue), digits: 2)
        case .malformedReturnParameters(let opcode, _):
            line.append("opcode 0x")
            line.append(hex: UInt64(opcode.rawValue), digits: 4)
            line.append(" returned malformed parameters")
        case .lowEnergyNotSupported:
            line.append("the controller has no LE")
        case .noACLBuffers:
            line.append("the controller has no usable ACL buffers")
        case .controllerTimedOut(let opcode):
            line.append("no answer to opcode 0x")
            line.append(hex: UInt64(opcode.rawValue), digits: 4)
        case .hardwareError(let code):
            line.append("hardware error 0x")
            line.append(hex: UInt64(code), digits: 2)
        case .commandQueueFull(let opcode):
            line.append("command queue full at opcode 0x")
            line.append(hex: UInt64(opcode.rawValue), digits: 4)
        }
    }
}
