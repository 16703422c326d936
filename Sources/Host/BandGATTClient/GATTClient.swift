import BandATT
import BandLink
import BandWire

/// A GATT client over one ATT bearer (Core 5.4 Vol 3 Part G §4), blocking and single-threaded.
///
/// ATT is a strict request/response protocol: one request in flight per bearer, answered by its
/// response or an Error Response naming it (Vol 3 Part F §3.3.2), or the bearer is dead after
/// 30 s (§3.3.3). Everything else the server sends — notifications, indications, its own
/// requests — may arrive at any time, including while a request waits; those are dispatched to
/// ``eventHandler`` in arrival order and never dropped, indications confirmed after the handler
/// returns.
///
/// One receive and one send buffer of ``ATT/maximumMTU`` bytes are allocated with the client and
/// reused for every PDU; decoded PDUs keep their values inline (``AttributeBytes``), so the
/// notification path does not touch the heap.
///
/// The handler must not start requests (it would nest inside the one waiting); it records what
/// arrived and returns, and the caller acts on it after the current procedure.
public final class GATTClient {
    public let bearer: any ATTBearer
    /// ATT's transaction timeout: 30 s in the specification; shorter in tests.
    public let transactionTimeout: Duration
    /// Called for every notification and indication, in arrival order.
    public var eventHandler: ((GATTValueEvent) -> Void)?
    /// What the client saw and dropped or answered on its own; for diagnostics and tests.
    public private(set) var statistics = GATTClientStatistics()

    /// The ATT_MTU in force (the bearer's; 23 until ``exchangeMTU(clientReceiveMTU:)``).
    public var mtu: Int { bearer.mtu }

    private let receiveBuffer: UnsafeMutableRawBufferPointer
    private let sendBuffer: UnsafeMutableRawBufferPointer
    private var pendingRequest: ATTOpcode?
    private var dispatching = false
    private var unusableReason: String?
    private let clock = ContinuousClock()
    /// CCCD handles written by this client on this bearer, with the value written.
    var subscriptions: [UInt16: UInt16] = [:]

    public init(bearer: any ATTBearer, transactionTimeout: Duration = .seconds(30)) {
        self.bearer = bearer
        self.transactionTimeout = transactionTimeout
        receiveBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
        sendBuffer = .allocate(byteCount: ATT.maximumMTU, alignment: 8)
    }

    deinit {
        receiveBuffer.deallocate()
        sendBuffer.deallocate()
    }

    /// True until a timeout, a protocol violation or a link failure ended this bearer.
    public var isUsable: Bool { unusableReason == nil }

    /// Closes the bearer; later procedures fail with ``GATTError/bearerUnusable(reason:)``.
    public func close() {
        markUnusable("closed by the client")
    }

    // MARK: Waiting for events

    /// Waits up to `timeout` (nil: forever) for one PDU from the server and handles it.
    /// Returns false when the time passed with nothing received.
    @discardableResult
    public func processEvents(timeout: Duration?) throws(GATTError) -> Bool {
        try checkUsable(attempting: nil)
        guard let count = try receive(timeout: timeout) else { return false }
        _ = try handleIncoming(count: count, awaiting: nil)
        return true
    }

    // MARK: Transactions

    /// Sends a request and waits for its response, dispatching whatever else arrives meanwhile.
    func transact<Request: ATTPDUType>(_ request: Request) throws(GATTError) -> ATTPDU {
        try checkUsable(attempting: Request.opcode)
        try send(request)
        pendingRequest = Request.opcode
        defer { pendingRequest = nil }
        let deadline = clock.now.advanced(by: transactionTimeout)
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                markUnusable("\(Request.opcode.name ?? "request") timed out")
                throw .transactionTimeout(request: Request.opcode, after: transactionTimeout)
            }
            guard let count = try receive(timeout: remaining) else { continue }
            if let response = try handleIncoming(count: count, awaiting: Request.opcode) {
                return response
            }
        }
    }

    /// Sends a PDU that opens no transaction (a command or a confirmation).
    func sendUnacknowledged<PDU: ATTPDUType>(_ pdu: PDU) throws(GATTError) {
        try checkUsable(attempting: PDU.opcode)
        try send(pdu)
    }

    private func checkUsable(attempting opcode: ATTOpcode?) throws(GATTError) {
        if let unusableReason { throw .bearerUnusable(reason: unusableReason) }
        guard let opcode else { return }
        if dispatching { throw .requestFromEventHandler(attempted: opcode) }
        if let pendingRequest, opcode.isRequest { throw .requestInFlight(pending: pendingRequest, attempted: opcode) }
    }

    private func send<PDU: ATTPDUType>(_ pdu: PDU) throws(GATTError) {
        var writer = ByteWriter(sendBuffer)
        pdu.encode(into: &writer)
        let limit = bearer.mtu
        guard !writer.overflowed, writer.count <= limit else {
            throw .valueTooLong(length: writer.attempted, limit: limit)
        }
        do {
            try bearer.send(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(sendBuffer)[0..<writer.count]))
        } catch {
            markUnusable("link failed: \(error)")
            throw .link(error)
        }
    }

    private func receive(timeout: Duration?) throws(GATTError) -> Int? {
        do {
            return try bearer.receive(into: receiveBuffer, timeout: timeout)
        } catch {
            markUnusable("link failed: \(error)")
            throw .link(error)
        }
    }

    func markUnusable(_ reason: String) {
        guard unusableReason == nil else { return }
        unusableReason = reason
        bearer.close()
    }

    func violation(_ what: String) -> GATTError {
        markUnusable("protocol violation: \(what)")
        return .protocolViolation(what)
    }

    // MARK: Incoming PDUs

    /// Handles one received PDU; returns it when it is the response `awaiting` waits for.
    private func handleIncoming(count: Int, awaiting: ATTOpcode?) throws(GATTError) -> ATTPDU? {
        let pdu = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(receiveBuffer)[0..<count])
        guard count > 0 else {
            statistics.droppedMalformed += 1
            return nil
        }
        let opcode = ATTOpcode(rawValue: pdu[0])
        switch opcode.kind {
        case .notification?:
            if opcode == .multipleHandleValueNotification {
                dispatchMultipleNotifications(pdu)
                return nil
            }
            do {
                let notification = try ATTHandleValueNotification(parsingAll: pdu)
                statistics.notifications += 1
                dispatch(.notification, handle: notification.handle, value: notification.value)
            } catch {
                statistics.droppedMalformed += 1
            }
            return nil
        case .indication?:
            do {
                let indication = try ATTHandleValueIndication(parsingAll: pdu)
                statistics.indications += 1
                dispatch(.indication, handle: indication.handle, value: indication.value)
            } catch {
                statistics.droppedMalformed += 1
            }
            // The server waits for this before its next indication (§4.11.1), malformed or not.
            try sendConfirmation()
            return nil
        case .confirmation?:
            // We never indicate, so there is nothing to confirm; harmless, so not fatal.
            statistics.unexpectedIgnored += 1
            return nil
        case .errorResponse?:
            guard let awaiting else { throw violation("\(opcode) arrived with no request outstanding") }
            let error: ATTErrorResponse
            do { error = try ATTErrorResponse(parsingAll: pdu) } catch {
                throw .malformedResponse(request: awaiting, error)
            }
            guard error.requestOpcode == awaiting else {
                throw violation("Error Response names \(error.requestOpcode) while \(awaiting) is outstanding")
            }
            throw .attError(request: awaiting, handle: error.handle, code: error.error)
        case .response?:
            guard let awaiting else { throw violation("\(opcode) arrived with no request outstanding") }
            guard opcode == awaiting.responseOpcode else {
                throw violation("\(opcode) arrived while \(awaiting) is outstanding")
            }
            do { return try ATTPDU(bytes: pdu) } catch { throw .malformedResponse(request: awaiting, error) }
        case .command?:
            // §3.4.9: a command nobody handles is discarded.
            statistics.unexpectedIgnored += 1
            return nil
        case .request?, nil:
            // An opcode the table does not know says by bit 6 whether it is a command (§3.3.1).
            if opcode.isCommand {
                statistics.unexpectedIgnored += 1
                return nil
            }
        }
        // A request from the server's own client role, or an opcode we do not know that is not a
        // command: we hold no attributes, so every request is answered "Request Not Supported"
        // (§3.4.9) rather than left to time out the peer.
        statistics.requestsRefused += 1
        do {
            try send(ATTErrorResponse(requestOpcode: opcode, handle: 0, error: .requestNotSupported))
        } catch {
            if case .link = error { throw error }
        }
        return nil
    }

    private func sendConfirmation() throws(GATTError) {
        if let unusableReason { throw .bearerUnusable(reason: unusableReason) }
        try send(ATTHandleValueConfirmation())
    }

    private func dispatch(_ kind: GATTValueEvent.Kind, handle: UInt16, value: AttributeBytes) {
        guard let eventHandler else { return }
        dispatching = true
        defer { dispatching = false }
        value.withUnsafeBytes { bytes in
            eventHandler(GATTValueEvent(kind: kind, handle: handle, value: bytes))
        }
    }

    /// Multiple Handle Value Notification (0x23, Core 5.4 Vol 3 Part F §3.4.7.4): a run of
    /// {handle, length, value} tuples, delivered one by one. A malformed PDU is dropped whole:
    /// its lengths cannot be trusted, so neither can the values they delimit.
    private func dispatchMultipleNotifications(_ pdu: UnsafeRawBufferPointer) {
        let notification: ATTMultipleHandleValueNotification
        do { notification = try ATTMultipleHandleValueNotification(parsingAll: pdu) } catch {
            statistics.droppedMalformed += 1
            return
        }
        notification.forEachValue { handle, value in
            statistics.notifications += 1
            guard let eventHandler else { return }
            dispatching = true
            eventHandler(GATTValueEvent(kind: .notification, handle: handle, value: value))
            dispatching = false
        }
    }
}

/// Counts of what a ``GATTClient`` received that was not a response.
public struct GATTClientStatistics: Equatable, Sendable {
    public var notifications = 0
    public var indications = 0
    /// Notifications or indications that did not decode; dropped (indications still confirmed).
    public var droppedMalformed = 0
    /// Commands and stray confirmations from the server, discarded as §3.4.9 requires.
    public var unexpectedIgnored = 0
    /// Requests from the server, answered with Request Not Supported.
    public var requestsRefused = 0
    public init() {}
}
