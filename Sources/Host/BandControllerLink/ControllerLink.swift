#if canImport(Glibc)
import Glibc
#endif
import BandATT
import BandHCI
import BandKitSystem
import BandLEHost
import BandLink
import BandWire
import ServiceSupport

/// A standard Bluetooth controller driven by the band's own host (``LEHost``) from a Linux
/// process: H4 on the controller's descriptor, the host's timers, and each link's ATT PDUs
/// handed to the band through a `SOCK_SEQPACKET` pair — so the band's services see the same
/// ATT bearer as on the simulator's socket, and a band that stops reading fills that socket
/// the way it fills a radio's buffers.
///
/// One piece of the owner's poll loop (``PollDriven``); never blocks except on writes to the
/// controller, which its ACL credits and the command window bound.
public final class ControllerLink: PollDriven {
    /// What the owner hears about.
    public enum Note: Equatable {
        case ready(ControllerInfo)
        case connected(LEAddress)
        case disconnected(HCIStatus)
        /// Pairing asks the user to type this passkey on the central.
        case passkey(UInt32)
        /// A line for the log (pairing results, drops, controller errors).
        case log(String)
        /// The link stopped for good (``failure`` says the same).
        case failed(String)
    }

    public let descriptor: Int32
    public let address: ControllerAddress
    private var host: LEHost<NoAttributes>
    private var io: ControllerLinkIO
    private var source = NoAttributes()
    private let memory: UnsafeMutableRawBufferPointer
    private let readBuffer: UnsafeMutableRawBufferPointer
    private let pduBuffer: UnsafeMutableRawBufferPointer
    /// The central's PDUs of one host call (``ControllerLinkIO``): a whole read's bytes, plus
    /// the start of a PDU an earlier read left in reassembly.
    private let receivedPDUs: UnsafeMutableRawBufferPointer
    /// The events being acted on, swapped with the IO's list so neither allocates.
    private var pendingEvents: [LEHostEvent<Never>] = []
    private let started = ContinuousClock.now
    /// The host's side of the current link's ATT pair.
    private var hostSide: SeqPacketLink?
    /// The band's side, until the owner takes it.
    private var bandSide: SeqPacketLink?
    public var onNote: (Note) -> Void = { _ in }
    /// Why the link stopped for good (the controller failed, closed or sent what cannot be
    /// H4); nil while it runs.
    public private(set) var failure: String?
    public private(set) var controller: ControllerInfo?
    /// ATT PDUs the band sent that no longer had a link to go to, or the band's socket refused.
    public private(set) var droppedPDUs = 0
    /// Bytes that began no H4 packet, one after another in the stream, not yet logged: a
    /// controller out of step (or not speaking H4) sends them in bursts, logged as one line
    /// each when the burst ends.
    private var strayBytes: (streamOffset: Int, count: Int)?

    /// Takes `descriptor` (``ControllerPort/open(_:serial:)``), which it closes, and starts
    /// bring-up with HCI Reset.
    public init(descriptor: Int32, address: ControllerAddress, configuration: LEHostConfiguration, bonds: BondFile) {
        self.descriptor = descriptor
        self.address = address
        memory = .allocate(byteCount: LEHostMemory.size(attMTU: configuration.attMTU), alignment: 8)
        readBuffer = .allocate(byteCount: 4096, alignment: 8)
        pduBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
        receivedPDUs = .allocate(byteCount: readBuffer.count + ATT.maximumMTU, alignment: 8)
        host = LEHost(configuration: configuration, memory: LEHostMemory(region: memory, attMTU: configuration.attMTU))
        io = ControllerLinkIO(descriptor: descriptor, bonds: bonds, pduBytes: receivedPDUs)
        pendingEvents.reserveCapacity(16)
        host.start(now: milliseconds(ContinuousClock.now), io: &io)
        settle()
    }

    deinit {
        hostSide?.close()
        bandSide?.close()
        Glibc.close(descriptor)
        memory.deallocate()
        readBuffer.deallocate()
        pduBuffer.deallocate()
        receivedPDUs.deallocate()
    }

    /// The band's ATT bearer of a link that came up since the last call (nil: none).
    public func takeBandSide() -> SeqPacketLink? {
        defer { bandSide = nil }
        return bandSide
    }

    /// The bonds as kept.
    public var bonds: BondFile { io.bonds }

    /// Runs the loop alone until bring-up ends: the controller's info, or why it failed
    /// (absent, silent, refusing, or talking something other than H4) within `timeout`.
    public func waitUntilReady(timeout: Duration) -> Result<ControllerInfo, ControllerLinkError> {
        let deadline = ContinuousClock.now + timeout
        while controller == nil, failure == nil {
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                return .failure(ControllerLinkError("\(address): no answer to bring-up within \(timeout) (is it an H4 controller?)"))
            }
            if let error = pollOnce(timeout: min(left, .milliseconds(100))) { return .failure(ControllerLinkError("poll: \(error)")) }
        }
        if let failure { return .failure(ControllerLinkError(failure)) }
        return .success(controller!)
    }

    // MARK: PollDriven

    public func appendPollDescriptors(to descriptors: inout [pollfd]) {
        guard failure == nil else { return }
        descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0))
        // The band's PDUs are read only while the host has room for them: a full ACL queue
        // leaves them in the socket, where they hold the band back.
        if let fd = hostSide?.pollDescriptor, host.canSendATT { descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
    }

    /// The host's command and pairing timeouts are checked at least this often.
    public var nextDeadline: ContinuousClock.Instant? { failure == nil ? ContinuousClock.now + .milliseconds(250) : nil }

    public func handle(_ polled: some Collection<pollfd>, now: ContinuousClock.Instant, budget: Duration) {
        guard failure == nil else { return }
        let ms = milliseconds(now)
        if polled.contains(where: { $0.fd == descriptor && $0.revents != 0 }) {
            readController(now: ms)
        } else {
            logStrayBytes()  // the controller went quiet: a burst is over
        }
        forwardBandPDUs()
        host.tick(now: ms, io: &io)
        settle()
    }

    private func readController(now: UInt32) {
        switch valueOrErrno({ read(descriptor, readBuffer.baseAddress, readBuffer.count) }) {
        case .success(let count) where count > 0:
            host.receive(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]), now: now, source: &source, io: &io)
        case .success:
            stop("\(address): the controller closed the connection")
        case .failure(.wouldBlock):
            break  // readiness was spurious; poll again
        case .failure(let error):
            stop("\(address): read failed: \(error)")
        }
    }

    /// Moves the band's PDUs into the host while it has room; a band that hung up ends the link.
    private func forwardBandPDUs() {
        while let side = hostSide, host.canSendATT {
            let length: Int?
            do throws(LinkError) {
                length = try side.receive(into: pduBuffer, timeout: .zero)
            } catch {
                // The band dropped the link (a fault, a reboot): the radio link goes too.
                side.close()
                hostSide = nil
                _ = host.disconnect(reason: 0x13, io: &io)
                return
            }
            guard let length else { return }
            if !host.sendATT(UnsafeRawBufferPointer(rebasing: pduBuffer[0..<length]), io: &io) { droppedPDUs += 1 }
        }
    }

    /// Acts on what the host reported and hands the band the PDUs it received.
    private func settle() {
        if let error = io.writeError { stop("\(address): write failed: \(error)") }
        swap(&io.events, &pendingEvents)
        for event in pendingEvents {
            if case .dropped(.h4(let drop)) = event, drop.reason == .unknownIndicator {
                countStrayByte(at: drop.streamOffset)
                continue
            }
            logStrayBytes()
            act(on: event)
        }
        pendingEvents.removeAll(keepingCapacity: true)
        if io.overflowedPDUs > 0 {
            droppedPDUs += io.overflowedPDUs
            onNote(.log("\(io.overflowedPDUs) ATT PDUs from the central dropped: more than one read's worth at once"))
            io.overflowedPDUs = 0
        }
        for range in io.pduRanges {
            guard let side = hostSide else { droppedPDUs += 1; continue }
            do throws(LinkError) { try side.send(io.pdu(range)) } catch {
                droppedPDUs += 1
                onNote(.log("ATT PDU from the central dropped: the band is not reading (\(error))"))
            }
        }
        io.pduRanges.removeAll(keepingCapacity: true)
    }

    private func act(on event: LEHostEvent<Never>) {
        switch event {
        case .ready(let info):
            controller = info
            onNote(.ready(info))
        case .failed(let error):
            stop("\(address): \(Self.text(of: error))")
        case .controllerError(let error):
            onNote(.log("controller: \(Self.text(of: error))"))
        case .advertising:
            break
        case .connected(_, let peer, _, _, _):
            endLink()
            do throws(LinkError) {
                let (hostEnd, bandEnd) = try SeqPacketLink.pair(mtu: ATT.maximumMTU)
                hostEnd.sendTimeout = .zero
                hostSide = hostEnd
                bandSide = bandEnd
                onNote(.connected(peer))
            } catch {
                onNote(.log("cannot make the link's ATT pair: \(error); disconnecting"))
                _ = host.disconnect(reason: 0x14, io: &io)
            }
        case .disconnected(_, let reason):
            endLink()
            onNote(.disconnected(reason))
        case .mtuChanged, .gatt:
            break  // ATT is the band's
        case .dataLengthChanged(let transmit, let receive):
            onNote(.log("link-layer packets: \(transmit) octets out, \(receive) in (Data Length)"))
        case .connectionParametersAnswered(let accepted):
            onNote(.log("connection parameters \(accepted ? "accepted" : "refused") by the central"))
        case .dropped(let drop):
            onNote(.log("dropped: \(drop)"))
        case .displayPasskey(let passkey):
            onNote(.passkey(passkey))
        case .pairingFailed(let failure):
            onNote(.log("pairing failed: reason 0x\(String(failure.reason, radix: 16)) (\(Self.smpReason(failure.reason))), sent by the \(failure.sentByBand ? "band" : "central")"))
        case .pairingThrottled(let wait):
            onNote(.log("too many wrong passkeys: pairing refused (Repeated Attempts) for \(wait / 1000) s"))
        case .encrypted:
            onNote(.log("link encrypted"))
        case .bonded(let bond, let saved):
            onNote(.log(saved ? "bonded with \(bond.peer) (\(bond.authenticated ? "passkey" : "Just Works")); bond stored"
                              : "bonded with \(bond.peer) but the bond could not be stored\(io.bonds.lastError.map { ": \($0)" } ?? " (store full)")"))
        }
    }

    /// A stray byte at `streamOffset`: the burst goes on when it follows the last one.
    private func countStrayByte(at streamOffset: Int) {
        if let run = strayBytes, run.streamOffset + run.count == streamOffset {
            strayBytes = (run.streamOffset, run.count + 1)
            return
        }
        logStrayBytes()
        strayBytes = (streamOffset, 1)
    }

    private func logStrayBytes() {
        guard let run = strayBytes else { return }
        strayBytes = nil
        onNote(.log("dropped \(run.count) byte\(run.count == 1 ? "" : "s") from stream offset \(run.streamOffset): no H4 packet starts with them (the controller is out of step or not speaking H4)"))
    }

    private func endLink() {
        hostSide?.close()
        hostSide = nil
        bandSide?.close()
        bandSide = nil
    }

    private func stop(_ reason: String) {
        guard failure == nil else { return }
        logStrayBytes()
        failure = reason
        endLink()
        onNote(.failed(reason))
    }

    private func milliseconds(_ instant: ContinuousClock.Instant) -> UInt32 {
        let (seconds, attoseconds) = (instant - started).components
        return UInt32(truncatingIfNeeded: seconds &* 1000 &+ attoseconds / 1_000_000_000_000_000)
    }

    static func text(of error: LEHostError) -> String {
        switch error {
        case .controllerRefused(let opcode, let status): "\(opcode) refused: \(status)"
        case .malformedReturnParameters(let opcode, let parse): "\(opcode) answered with unreadable parameters: \(parse)"
        case .lowEnergyNotSupported: "the controller does not support Bluetooth Low Energy"
        case .noACLBuffers(let length, let count): "the controller offers no usable ACL buffers (\(count) of \(length) bytes)"
        case .controllerTimedOut(let opcode): "no answer to \(opcode) within 2 s"
        case .hardwareError(let code): "hardware error 0x\(String(code, radix: 16))"
        case .commandQueueFull(let opcode): "\(opcode) did not fit the command queue"
        }
    }

    static func smpReason(_ reason: UInt8) -> String {
        switch reason {
        case SMPFailure.passkeyEntryFailed: "Passkey Entry Failed"
        case SMPFailure.authenticationRequirements: "Authentication Requirements"
        case SMPFailure.confirmValueFailed: "Confirm Value Failed"
        case SMPFailure.pairingNotSupported: "Pairing Not Supported"
        case SMPFailure.encryptionKeySize: "Encryption Key Size"
        case SMPFailure.commandNotSupported: "Command Not Supported"
        case SMPFailure.repeatedAttempts: "Repeated Attempts"
        case SMPFailure.invalidParameters: "Invalid Parameters"
        case SMPFailure.dhKeyCheckFailed: "DHKey Check Failed"
        default: "Unspecified Reason"
        }
    }
}

/// Why the controller link cannot run, in words for the user.
public struct ControllerLinkError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
