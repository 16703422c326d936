import BandLEHost
import BandWire
import ChipRuntime

/// The band as a Bluetooth peripheral on its own (the hosted band image, firmware-sim/board/build.sh
/// `--band`): BandLEHost's ``LEHost`` speaks H4 to a standard controller on UART0, and the ATT PDUs
/// of its link go to the band the bridge image runs — ``FirmwareRuntime`` with ``ChipBand``,
/// unchanged — instead of arriving as the bridge's link messages. The bridge's other messages
/// stay: the debug port (UART1) takes the band's configuration (speed 0x09, scenario 0x12, faults
/// 0x13, start 0x10) and carries the band's frames out (booted, the flash report, the truth's
/// 0x87, log lines), with the host's own lines (the passkey to show, links, bonds) as log frames
/// among them. Bonds are kept in flash pages (``ChipBondStore``).
///
/// The host advertises once the band runs (0x10): a band without its clock has nothing to serve.
/// The host and the band never call into each other — each is busy while it calls out — so PDUs
/// wait in two ``PDUQueue``s between them, and while the host has no room the band sees a full
/// outbox (``ChipLinkHost/transportBusy``): notifications are dropped and history waits, as on a
/// congested radio. Nothing is allocated after start-up: the host's memory, the queues and the
/// PDU buffer are allocated when this is made.
public struct HostedBand<B: Board> {
    public var runtime: FirmwareRuntime<HostedBandBoard<B>, ChipBand>
    public var io: HostedBandIO<B>
    public private(set) var host: LEHost<NoAttributes>
    private var source = NoAttributes()
    public private(set) var hostStarted = false
    /// ATT PDUs the band sent that the host refused (too long for its ATT_MTU).
    public private(set) var refusedATT: UInt32 = 0
    private let pdu: UnsafeMutableRawBufferPointer

    /// ATT_MTU on the air: the band's own (``ChipBand/serverMTU``).
    public static var attMTU: Int { ChipBand.serverMTU }
    /// Bytes of the central's PDUs one host call can complete at most: the UART is fed to the
    /// host in chunks of 64 bytes, which finish at most one long PDU and a few short ones.
    static var incomingCapacity: Int { 512 }

    public init(board: B) {
        runtime = FirmwareRuntime(board: HostedBandBoard(base: board), application: ChipBand())
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: LEHostMemory.size(attMTU: Self.attMTU), alignment: 8)
        let services = HostedRuntime<B>.advertisedServices
        var configuration = services.span.withUnsafeBufferPointer { uuids in
            StaticString("BandKit M4").withUTF8Buffer { name in
                LEHostConfiguration.band(name: UnsafeRawBufferPointer(name), services: uuids, attMTU: Self.attMTU, ioCapability: 0x00)
            }
        }
        configuration.dataLengthOctets = 251
        host = LEHost(configuration: configuration, memory: LEHostMemory(region: memory, attMTU: Self.attMTU))
        io = HostedBandIO(bonds: ChipBondStore(board: board), incomingCapacity: Self.incomingCapacity)
        pdu = .allocate(byteCount: Self.attMTU, alignment: 4)
    }

    /// Boots the band's runtime (boot record, flash recovery, "booted" on the debug port); the
    /// host waits for the band to start.
    public mutating func start() {
        runtime.start()
    }

    /// The MCU's main loop.
    public mutating func run() -> Never {
        while true {
            poll()
            runtime.board.waitForEvent()
        }
    }

    /// One pass: the band's configuration and ticks, the controller's bytes through the host,
    /// PDUs across in both directions.
    public mutating func poll() {
        runtime.application.services?.host.transportBusy = runtime.board.outgoingATT.freeBytes < ChipLinkHost.outboxCapacity
        runtime.poll()
        if !hostStarted {
            guard runtime.application.core != nil else { return }
            hostStarted = true
            var line = DebugLine("hosted: BLE host on H4, ")
            line.append(decimal: UInt32(io.bonds.count))
            line.append(" bond(s) in flash, ")
            line.append(decimal: io.bonds.damagedSlots)
            line.append(" damaged slot(s)")
            io.log(&line)
            host.start(now: now(), io: &io)
        }
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
                let pairing = host.connection?.isPairing == true
                let before = runtime.board.cycleCount()
                host.receive(UnsafeRawBufferPointer(rebasing: raw[0..<count]), now: now(), source: &source, io: &io)
                countPairingCycles(since: before, wasPairing: pairing)
                deliverIncoming()
                sendOutgoing()
            }
        }
        host.tick(now: now(), io: &io)
        deliverIncoming()
        if runtime.board.linkDropRequested {
            runtime.board.linkDropRequested = false
            runtime.board.outgoingATT.removeAll()
            _ = host.disconnect(io: &io)
        }
        sendOutgoing()
    }

    /// The host's own cycles from a Pairing Request to the pairing's end (bonded or failed), the
    /// controller's P-256 and AES work excluded (it runs on the controller), said on the debug port
    /// when the pairing ends: what bench/firmware/mcu.sh reports as cycles per pairing.
    private mutating func countPairingCycles(since before: UInt64, wasPairing: Bool) {
        let pairing = host.connection?.isPairing == true
        guard wasPairing || pairing else { return }
        pairingCycles &+= runtime.board.cycleCount() &- before
        guard !pairing else { return }
        var line = DebugLine("hosted: pairing ended after ")
        line.append(decimal: UInt32(truncatingIfNeeded: pairingCycles))
        line.append(" host cycles")
        io.log(&line)
        pairingCycles = 0
    }
    private var pairingCycles: UInt64 = 0

    /// The links that came and went and the central's PDUs, in the order the host met them.
    private mutating func deliverIncoming() {
        var delivered = 0
        for index in 0..<io.linkChangeCount {
            let change = io.linkChanges[index]
            while delivered < change.pdusBefore, deliverOne() { delivered += 1 }
            if !change.connected { runtime.board.outgoingATT.removeAll() }
            runtime.application.linkChanged(connected: change.connected, board: &runtime.board)
        }
        io.linkChangeCount = 0
        while deliverOne() {}
    }

    private mutating func deliverOne() -> Bool {
        guard let length = io.incomingATT.peek(into: pdu) else { return false }
        io.incomingATT.removeFirst()
        _ = runtime.application.receivedATT(UnsafeRawBufferPointer(rebasing: pdu[0..<length]), board: &runtime.board)
        return true
    }

    /// The band's PDUs into the host while its queue has room.
    private mutating func sendOutgoing() {
        while host.canSendATT, let length = runtime.board.outgoingATT.peek(into: pdu) {
            runtime.board.outgoingATT.removeFirst()
            if !host.sendATT(UnsafeRawBufferPointer(rebasing: pdu[0..<length]), io: &io) { refusedATT &+= 1 }
        }
    }

    /// The host's clock in real milliseconds: the board's uptime is band time, which runs
    /// ``HostedBandBoard/bandSpeed`` times faster (link 0x09), and the host's time-outs (HCI
    /// commands, SMP) are the controller's and the central's real seconds.
    private mutating func now() -> UInt32 {
        let uptime = runtime.board.uptimeMilliseconds()
        let elapsed = uptime &- lastUptime &+ carriedBandMilliseconds
        lastUptime = uptime
        let speed = UInt64(max(runtime.board.bandSpeed, 1))
        hostMilliseconds &+= elapsed / speed
        carriedBandMilliseconds = elapsed % speed
        return UInt32(truncatingIfNeeded: hostMilliseconds)
    }
    private var lastUptime: UInt64 = 0
    private var carriedBandMilliseconds: UInt64 = 0
    private var hostMilliseconds: UInt64 = 0
}

/// The hosted band's ``LEHostIO``: H4 packets out of the board's UART, the host's reports as log
/// frames on the debug port (the lines ``ChipHostIO`` words), bonds in flash, and the central's
/// ATT PDUs and link changes kept for ``HostedBand`` to hand to the band once the host call returns.
public struct HostedBandIO<B: Board>: LEHostIO {
    public var bonds: ChipBondStore<B>
    public var incomingATT: PDUQueue
    /// A link came up (`connected`) or went, after `pdusBefore` of the PDUs in ``incomingATT``.
    struct LinkChange {
        var connected: Bool
        var pdusBefore: Int
    }
    var linkChanges = InlineArray<4, LinkChange>(repeating: LinkChange(connected: false, pdusBefore: 0))
    var linkChangeCount = 0

    init(bonds: ChipBondStore<B>, incomingCapacity: Int) {
        self.bonds = bonds
        incomingATT = PDUQueue(capacity: incomingCapacity)
    }

    public mutating func transmit(_ h4Packet: UnsafeRawBufferPointer) { bonds.board.transmit(h4Packet) }

    public mutating func report<WriteEffect>(_ event: LEHostEvent<WriteEffect>) {
        switch event {
        case .connected: noteLink(connected: true)
        case .disconnected: noteLink(connected: false)
        default: break
        }
        guard var line = ChipHostIO<B>.line(for: event) else { return }
        log(&line)
    }

    /// The band's services answer every PDU: the host's own GATT server is not in the image.
    public static var servesEveryATTPDU: Bool { true }

    public mutating func serveATT(_ pdu: UnsafeRawBufferPointer) -> Bool {
        if !incomingATT.append(pdu) {
            var line = DebugLine("hosted: a PDU from the central dropped: the band's inbox is full")
            log(&line)
        }
        return true
    }

    mutating func log(_ line: inout DebugLine) {
        line.withBytes { HostedBandBoard<B>.sendLog($0, on: &bonds.board) }
    }

    /// More changes in one host call than fit (never seen: one call is 64 bytes) keep the last.
    private mutating func noteLink(connected: Bool) {
        let change = LinkChange(connected: connected, pdusBefore: incomingATT.count)
        if linkChangeCount < linkChanges.count {
            linkChanges[linkChangeCount] = change
            linkChangeCount += 1
        } else {
            linkChanges[linkChanges.count - 1] = change
        }
    }
}
