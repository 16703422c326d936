import BandATT
import BandGATTServer
import BandWire

/// The band's side of ATT: PDUs from the client go to the one GATT server (BandGATTServer),
/// answered from the band's attribute table; its response goes out from the transmit buffer,
/// and what the client did (MTU agreed, a write accepted, an indication confirmed) is acted on
/// afterwards. Nothing a client sends can crash the band.
extension BandServices {
    /// Handles one PDU from the client.
    public func handlePDU(_ bytes: UnsafeRawBufferPointer) {
        guard let current = connection, !bytes.isEmpty else { return }
        var source = BandAttributeSource(services: self)
        var server = current.server
        let output = UnsafeMutableRawBufferPointer(rebasing: transmitBuffer[0..<current.mtu])
        let result = server.handle(bytes, source: &source, into: output)
        current.server = server
        // The response goes first (at the MTU in force before an exchange, §3.4.2); what it
        // caused follows, unless sending it lost the connection.
        if result.responseLength > 0, !transmit(result.responseLength, on: current) { return }
        switch result.event {
        case .exchangedMTU(let agreed):
            host.linkMTUChanged(agreed)
        case .wrote(_, let followUp):
            perform(followUp)
        case .confirmedIndication:
            indicationConfirmed()
        case .none, .writeRefused, .unexpected:
            // A refused write got its Error Response (a command none); a client sending server
            // PDUs or signed writes is ignored.
            break
        }
    }
}

/// Building and sending PDUs from the band's one transmit buffer.
extension BandServices {
    /// Encodes one PDU with `body` (bounded by the connection's MTU) and sends it. Returns false
    /// when the connection is gone afterwards (send failed, or a disconnect fault fired).
    @discardableResult
    func sendPDU(_ body: (inout ByteWriter) -> Void) -> Bool {
        guard let current = connection else { return false }
        var writer = ByteWriter(UnsafeMutableRawBufferPointer(rebasing: transmitBuffer[0..<current.mtu]))
        body(&writer)
        let length: Int
        do throws(EncodeError) { length = try writer.finish() } catch {
            host.report(.oversizePDUDropped(connection: current.number, mtu: current.mtu, error: error))
            return true
        }
        return transmit(length, on: current)
    }

    /// Sends the first `length` bytes of the transmit buffer; false when the connection is gone afterwards.
    func transmit(_ length: Int, on current: ServiceConnection) -> Bool {
        guard host.send(UnsafeRawBufferPointer(rebasing: transmitBuffer[0..<length])) else {
            disconnect(.sendFailed)
            return false
        }
        if faults.shouldDisconnectAfterSend() {
            disconnect(.faultRandom)
            return false
        }
        return true
    }

    func sendError(_ error: ATTErrorCode, request: ATTOpcode, handle: UInt16) {
        sendPDU { ATTErrorResponse(requestOpcode: request, handle: handle, error: error).encode(into: &$0) }
    }

    /// Sends a Handle Value Notification of `characteristic` if the client enabled it, with the
    /// value written by `encodeValue` (cut to ATT_MTU − 3). Drop and corruption faults act here.
    /// Returns false when the connection is gone afterwards.
    ///
    /// Inlined at each caller, so the optimiser has no closure to specialise the whole body for:
    /// the checks before the value and the sending after it are one out-of-line copy each
    /// (six specialisations of the whole body cost the chip's image 2.4 KB of flash).
    @discardableResult
    @inline(__always)
    func notify(_ characteristic: Characteristic, _ encodeValue: (inout ByteWriter) -> Void) -> Bool {
        switch prepareNotification(characteristic) {
        case .connectionGone:
            return false
        case .notSent:
            return true
        case .ready(var writer, let current):
            encodeValue(&writer)
            return sendNotification(characteristic, valueLength: writer.count, on: current)
        }
    }

    /// Whether a notification of `characteristic` goes out now, and where its value goes.
    enum NotificationSlot {
        case connectionGone
        /// Not enabled by the client, or the link is congested (counted and reported here).
        case notSent
        /// The value goes into `writer` (the transmit buffer after the 3-byte header).
        case ready(ByteWriter, ServiceConnection)
    }

    @inline(never)
    func prepareNotification(_ characteristic: Characteristic) -> NotificationSlot {
        guard let current = connection else { return .connectionGone }
        guard current.notifying(characteristic) else { return .notSent }
        guard host.canSendWithoutBlocking() else {
            current.congestionDrops += 1
            if current.congestionDrops == 1 || current.congestionDrops % 1000 == 0 {
                host.report(.congested(connection: current.number, drops: current.congestionDrops))
            }
            return .notSent
        }
        let capacity = min(current.mtu - 3, ATT.maximumAttributeValueLength)
        return .ready(ByteWriter(UnsafeMutableRawBufferPointer(rebasing: transmitBuffer[3..<3 + capacity])), current)
    }

    @inline(never)
    func sendNotification(_ characteristic: Characteristic, valueLength: Int, on current: ServiceConnection) -> Bool {
        let handle = BandAttributeTable.valueHandle(characteristic)
        transmitBuffer[0] = ATTOpcode.handleValueNotification.rawValue
        transmitBuffer[1] = UInt8(truncatingIfNeeded: handle)
        transmitBuffer[2] = UInt8(truncatingIfNeeded: handle >> 8)
        switch faults.fate(ofNotificationWithValueLength: valueLength) {
        case .drop:
            return true
        case .corrupt(let bit):
            transmitBuffer[3 + bit / 8] ^= UInt8(1) << UInt8(bit % 8)
        case .deliver:
            break
        }
        return transmit(3 + valueLength, on: current)
    }

    /// Sends (or queues behind the unconfirmed one) a Handle Value Indication of `characteristic`.
    func indicate(_ characteristic: Characteristic, value: UnsafeRawBufferPointer) {
        guard let current = connection, current.indicating(characteristic) else { return }
        let handle = BandAttributeTable.valueHandle(characteristic)
        if current.awaitingConfirmation {
            if !current.indications.push(handle: handle, value: value) {
                host.report(.indicationQueueFull(connection: current.number))
                disconnect(.indicationOverflow)
            }
            return
        }
        sendIndication(handle: handle, value: value, on: current)
    }

    /// Encodes a control-point response into the value buffer and indicates it.
    func indicate(_ characteristic: Characteristic, _ encodeValue: (inout ByteWriter) -> Void) {
        var writer = ByteWriter(valueBuffer)
        encodeValue(&writer)
        indicate(characteristic, value: writer.written)
    }

    private func sendIndication(handle: UInt16, value: UnsafeRawBufferPointer, on current: ServiceConnection) {
        current.awaitingConfirmation = true
        sendPDU { writer in
            writer.writeUInt8(ATTOpcode.handleValueIndication.rawValue)
            writer.writeUInt16LE(handle)
            writer.writeBytes(value)
        }
    }

    /// The client confirmed the outstanding indication: send the next queued one.
    func indicationConfirmed() {
        guard let current = connection, current.awaitingConfirmation else { return }
        current.awaitingConfirmation = false
        if let next = current.indications.pop() {
            next.value.withUnsafeBytes { sendIndication(handle: next.handle, value: $0, on: current) }
        }
    }
}
