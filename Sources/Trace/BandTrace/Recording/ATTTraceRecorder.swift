import BandHCI
import BandWire

/// Records one LE connection's ATT traffic into a btsnoop file as the HCI packets a real
/// controller would have carried: LE Connection Complete, ACL packets (fragmented to the
/// controller's buffer size, PB 0b00 from the host, 0b10/0b01 from the controller, as in
/// Android captures), and Disconnection Complete.
///
/// For recording a reader's session (`band … --record`) and for generating test traces.
/// Nothing is allocated per PDU: one scratch buffer is reused.
///
/// ```swift
/// let writer = try BtsnoopWriter(path: "session.log", datalink: .h4)
/// let recorder = ATTTraceRecorder(writer: writer, connection: 0x0040)
/// try recorder.recordConnection(peer: band, at: t0)
/// try recorder.record(pdu: notificationBytes, direction: .rx, at: t1)
/// try writer.close()
/// ```
public final class ATTTraceRecorder {
    /// LE_ACL_Data_Packet_Length of a Bluetooth 4.0/4.1 controller: 27 bytes per ACL packet.
    public static let classicLEBufferSize = 27

    public let writer: BtsnoopWriter
    public let connection: UInt16
    public let adapter: UInt16
    /// Largest ACL data length per packet; longer L2CAP frames are fragmented.
    public let aclBufferSize: Int
    private let scratch: UnsafeMutableRawBufferPointer
    private let pduScratch: UnsafeMutableRawBufferPointer

    public init(writer: BtsnoopWriter, connection: UInt16, adapter: UInt16 = 0,
                aclBufferSize: Int = ATTTraceRecorder.classicLEBufferSize) {
        precondition(aclBufferSize >= 1 && aclBufferSize <= 0xFFFF)
        precondition(connection <= HCIACLHeader.maximumHandle)
        self.writer = writer
        self.connection = connection
        self.adapter = adapter
        self.aclBufferSize = aclBufferSize
        scratch = .allocate(byteCount: max(HCIACLHeader.size + aclBufferSize, 260), alignment: 8)
        pduScratch = .allocate(byteCount: 517, alignment: 8)
    }

    deinit {
        scratch.deallocate()
        pduScratch.deallocate()
    }

    /// Writes LE Connection Complete (the recording host as central).
    public func recordConnection(peer: LEAddress, at unixMicroseconds: Int64) throws(BtsnoopError) {
        try recordEvent(.leMeta, at: unixMicroseconds) { LEConnectionComplete(handle: connection, peer: peer).encode(into: &$0) }
    }

    /// Writes Disconnection Complete.
    public func recordDisconnection(reason: UInt8 = 0x13, at unixMicroseconds: Int64) throws(BtsnoopError) {
        try recordEvent(.disconnectionComplete, at: unixMicroseconds) {
            DisconnectionComplete(handle: connection, reason: reason).encode(into: &$0)
        }
    }

    /// Writes any HCI event: `parameters` encodes everything after the 2-byte event header.
    public func recordEvent(_ code: HCIEventCode, at unixMicroseconds: Int64,
                            parameters: (inout ByteWriter) -> Void) throws(BtsnoopError) {
        var output = ByteWriter(scratch)
        HCIEventHeader(code: code, parameterLength: 0).encode(into: &output)
        parameters(&output)
        let length = output.count - HCIEventHeader.size
        precondition(!output.overflowed && length <= 255, "event parameters do not fit")
        scratch[1] = UInt8(length)
        try writer.writePacket(.event, direction: .rx, adapter: adapter, unixMicroseconds: unixMicroseconds,
                               payload: UnsafeRawBufferPointer(rebasing: scratch[0..<output.count]))
    }

    /// Writes one ATT PDU on CID 4, fragmented into ACL packets of at most ``aclBufferSize`` bytes.
    public func record(pdu: UnsafeRawBufferPointer, direction: TraceDirection, at unixMicroseconds: Int64) throws(BtsnoopError) {
        precondition(pdu.count <= 0xFFFF - L2CAPBasicHeader.size)
        let total = L2CAPBasicHeader.size + pdu.count
        var sent = 0
        while sent < total {
            let chunk = min(aclBufferSize, total - sent)
            let boundary: ACLPacketBoundary = sent > 0 ? .continuing : (direction == .tx ? .firstNonFlushable : .firstFlushable)
            var output = ByteWriter(scratch)
            HCIACLHeader(handle: connection, boundary: boundary, dataLength: UInt16(chunk)).encode(into: &output)
            // The L2CAP header is bytes 0–3 of the frame; the PDU follows.
            var position = sent
            while position < sent + chunk {
                if position < L2CAPBasicHeader.size {
                    let header: UInt32 = UInt32(pdu.count) | UInt32(L2CAPChannelID.att.rawValue) << 16
                    output.writeUInt8(UInt8(truncatingIfNeeded: header >> (8 * UInt32(position))))
                    position += 1
                } else {
                    let start = position - L2CAPBasicHeader.size
                    let count = sent + chunk - position
                    output.writeBytes(UnsafeRawBufferPointer(rebasing: pdu[start..<start + count]))
                    position += count
                }
            }
            try writer.writePacket(.acl, direction: direction, adapter: adapter, unixMicroseconds: unixMicroseconds,
                                   payload: UnsafeRawBufferPointer(rebasing: scratch[0..<output.count]))
            sent += chunk
        }
    }

    /// Encodes `pdu` (any BandATT PDU type) and records it.
    public func record(_ pdu: some WireEncodable, direction: TraceDirection, at unixMicroseconds: Int64) throws(BtsnoopError) {
        var output = ByteWriter(pduScratch)
        pdu.encode(into: &output)
        precondition(!output.overflowed, "ATT PDU longer than ATT_MTU 517")
        try record(pdu: output.written, direction: direction, at: unixMicroseconds)
    }
}
