import BandHCI
import BandWire

/// What an owner that serves ATT itself (``LEHostIO/serveATT(_:)``) needs from the link: room
/// to send, a way to send, and a way to end it.
extension LEHost {
    /// True when a PDU handed to ``sendATT(_:io:)`` now would be queued.
    public var canSendATT: Bool { connection != nil && !outbox.isFull }

    /// Queues one whole ATT PDU (the owner's response, notification or indication, at most
    /// the configuration's ATT_MTU) on the ATT channel and hands the controller what its
    /// credits allow; false (nothing queued) without a link, with a full queue or when the PDU
    /// does not fit.
    public mutating func sendATT<IO: LEHostIO>(_ pdu: UnsafeRawBufferPointer, io: inout IO) -> Bool {
        guard connection != nil, pdu.count <= configuration.attMTU else { return false }
        let queued = outbox.enqueue(channel: .att) { $0.writeBytes(pdu) }
        flush(io: &io)
        return queued
    }

    /// Asks the controller to end the link with `reason` (an HCI error code; 0x13 Remote User
    /// Terminated Connection is what a band turning its radio off sends). The link is gone when
    /// ``LEHostEvent/disconnected(handle:reason:)`` comes; false when there is none.
    public mutating func disconnect<IO: LEHostIO>(reason: UInt8 = 0x13, io: inout IO) -> Bool {
        guard let link = connection else { return false }
        send(HCIDisconnect(handle: link.handle, reason: reason), io: &io)
        flush(io: &io)
        return true
    }
}
