import BandATT
import BandGATTServer
import BandHCI
import BandWire

/// The band's own BLE peripheral host: HCI over an H4 UART to any standard controller, GAP
/// advertising, L2CAP LE fixed channels (ATT, LE signaling, SMP) and the unchanged
/// ``GATTServer`` on top — in the Embedded Swift subset, with no I/O of its own.
///
/// The owner feeds it the UART's bytes and the time, and gives it an ``LEHostIO`` that writes
/// H4 packets to the UART, keeps bonds and hears events. The chip's UART loop and a Linux
/// process on a controller's tty drive the same code:
///
/// ```
/// var host = LEHost<MySource>(configuration: .band(name: …, services: …), memory: memory)
/// host.start(now: clock(), io: &io)                                   // HCI Reset …
/// loop { host.receive(uartBytes, now: clock(), source: &gatt, io: &io) // events, ACL data
///        host.tick(now: clock(), io: &io) }                          // timeouts
/// ```
///
/// Layers, bottom up: ``H4PacketDecoder`` → ``HCICommandFlow`` / ``ControllerBringUp`` /
/// ``ACLCredits`` → ``L2CAPReassembly`` / ``L2CAPOutbox`` → ATT (``GATTServer``),
/// ``LESignalingChannel``, ``SecurityManager``. One connection at a time (a band has one
/// central); advertising restarts when it ends. Memory is the caller's ``LEHostMemory``; the
/// packet path allocates nothing.
public struct LEHost<Source: GATTAttributeSource> {
    public enum Phase: Equatable, Sendable {
        /// ``start(now:io:)`` not called yet.
        case off
        /// Bring-up commands in flight.
        case bringingUp
        /// Advertising or connected.
        case running
        /// Stopped on an error (``LEHostEvent/failed(_:)`` said which); ``start(now:io:)`` tries again.
        case failed
    }

    public let configuration: LEHostConfiguration
    public internal(set) var phase = Phase.off
    public internal(set) var bringUp = ControllerBringUp()
    public internal(set) var connection: LEConnection?
    public internal(set) var aclCredits = ACLCredits()
    public internal(set) var commands: HCICommandFlow
    /// Wrong passkeys in a row and the wait they earned; survives links.
    public internal(set) var pairingGuard = PairingAttemptGuard()
    /// When the running pairing times out (30 s after the last SMP command, Vol 3 Part H §3.4).
    var pairingDeadline: UInt32 = 0
    /// True while the controller advertises (as far as the host asked it to).
    public internal(set) var advertising = false
    var decoder: H4PacketDecoder
    var reassembly: L2CAPReassembly
    var outbox: L2CAPOutbox
    let responseBuffer: UnsafeMutableRawBufferPointer
    let transmitBuffer: UnsafeMutableRawBufferPointer
    var now: UInt32 = 0

    public init(configuration: LEHostConfiguration, memory: LEHostMemory) {
        precondition(memory.pduSize >= 4 + configuration.attMTU, "LEHostMemory was laid out for a smaller ATT_MTU")
        self.configuration = configuration
        decoder = H4PacketDecoder(buffer: memory.receive)
        reassembly = L2CAPReassembly(buffer: memory.reassembly)
        outbox = L2CAPOutbox(memory: memory.outbox, slotSize: memory.pduSize)
        responseBuffer = memory.response
        transmitBuffer = memory.transmit
        commands = HCICommandFlow(memory: memory.commands)
    }

    /// Brings the controller up from HCI Reset (again, after a failure or Hardware Error).
    public mutating func start<IO: LEHostIO>(now: UInt32, io: inout IO) {
        self.now = now
        decoder.reset()
        commands.reset()
        dropConnection()
        advertising = false
        bringUp.restart()
        phase = .bringingUp
        send(bringUpCommand: .reset, io: &io)
        flush(io: &io)
    }

    /// Bytes from the controller's UART, in any split.
    public mutating func receive<IO: LEHostIO>(_ bytes: UnsafeRawBufferPointer, now: UInt32, source: inout Source, io: inout IO) {
        self.now = now
        var input = ByteCursor(bytes)
        while true {
            switch decoder.decode(&input) {
            case .needMoreData:
                flush(io: &io)
                return
            case .dropped(let drop):
                io.report(LEHostEvent<Source.WriteEffect>.dropped(.h4(drop)))
            case .packet(let type):
                if type == .event { handleEvent(decoder.packet, source: &source, io: &io) } else { handleACL(decoder.packet, source: &source, io: &io) }
            }
            flush(io: &io)
        }
    }

    /// Checks the time-outs: a controller that stopped answering commands stops the host.
    public mutating func tick<IO: LEHostIO>(now: UInt32, io: inout IO) {
        self.now = now
        pairingGuard.advance(now: now)
        if phase != .failed, phase != .off, let opcode = commands.overdue(now: now) {
            fail(.controllerTimedOut(opcode), io: &io)
        }
        if var link = connection, link.security.isPairing, Int32(bitPattern: now &- pairingDeadline) >= 0 {
            let outcome = link.security.timedOut()
            connection = link
            performSecurity(outcome, io: &io)
        }
    }

    /// Sends a Handle Value Notification of `value` (cut to ATT_MTU − 3) for `handle`; false when
    /// there is no link or the outgoing queue is full (the caller tries again later).
    public mutating func notify<IO: LEHostIO>(handle: UInt16, value: UnsafeRawBufferPointer, io: inout IO) -> Bool {
        guard let link = connection else { return false }
        let length = min(value.count, link.mtu - 3)
        let queued = outbox.enqueue(channel: .att) { writer in
            writer.writeUInt8(ATTOpcode.handleValueNotification.rawValue)
            writer.writeUInt16LE(handle)
            writer.writeBytes(UnsafeRawBufferPointer(rebasing: value[0..<length]))
        }
        flush(io: &io)
        return queued
    }

    /// Asks the central for other connection parameters (L2CAP Connection Parameter Update
    /// Request); the answer comes as ``LEHostEvent/connectionParametersAnswered(accepted:)``.
    /// False when there is no link, the request is out of range or the queue is full.
    public mutating func requestConnectionParameters<IO: LEHostIO>(_ request: ConnectionParameterUpdateRequest, io: inout IO) -> Bool {
        guard connection != nil, request.isValid else { return false }
        let identifier = connection!.signaling.nextRequestIdentifier()
        let queued = outbox.enqueue(channel: .leSignaling) { writer in
            LESignalingHeader(code: .connectionParameterUpdateRequest, identifier: identifier, dataLength: 8).encode(into: &writer)
            request.encode(into: &writer)
        }
        flush(io: &io)
        return queued
    }

    // MARK: Sending

    /// Queues a command; a full ring stops the host (the sequence cannot go on without it).
    mutating func send<IO: LEHostIO, Command: HCICommandParameters>(_ command: Command, io: inout IO) {
        guard commands.enqueue(command) else {
            io.report(LEHostEvent<Source.WriteEffect>.controllerError(.commandQueueFull(command.opcode)))
            return
        }
    }

    /// Hands the controller what it has room for: queued commands, then ACL fragments.
    mutating func flush<IO: LEHostIO>(io: inout IO) {
        commands.pump(now: now) { io.transmit($0) }
        if let link = connection {
            outbox.pump(handle: link.handle, credits: &aclCredits, scratch: transmitBuffer) { io.transmit($0) }
        }
    }

    mutating func fail<IO: LEHostIO>(_ error: LEHostError, io: inout IO) {
        phase = .failed
        commands.reset()
        dropConnection()
        io.report(LEHostEvent<Source.WriteEffect>.failed(error))
    }

    mutating func dropConnection() {
        connection = nil
        reassembly.abandon()
        outbox.clear()
        aclCredits.linkEnded()
    }
}
