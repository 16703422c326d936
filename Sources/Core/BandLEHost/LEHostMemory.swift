/// Every byte the host uses after start-up, carved from one caller-owned region: on the chip a
/// static array, on Linux one allocation at start. Nothing on the packet path allocates.
///
/// | part | size |
/// |---|---|
/// | H4 receive buffer | 1 + 4 + 255 (the longest event; ACL packets up to 255 bytes) |
/// | L2CAP reassembly | 4 + ATT_MTU |
/// | ATT response | ATT_MTU |
/// | outgoing L2CAP PDUs | ``L2CAPOutbox/slotCount`` × (4 + ATT_MTU) |
/// | H4 transmit scratch | 1 + 4 + 255 |
/// | HCI command ring | ``HCICommandFlow/memorySize`` |
public struct LEHostMemory {
    public static let receiveSize = 4 + 256
    public static let transmitSize = 1 + 4 + 255

    let receive: UnsafeMutableRawBufferPointer
    let reassembly: UnsafeMutableRawBufferPointer
    let response: UnsafeMutableRawBufferPointer
    let outbox: UnsafeMutableRawBufferPointer
    let transmit: UnsafeMutableRawBufferPointer
    let commands: UnsafeMutableRawBufferPointer
    let pduSize: Int

    /// Bytes a host with this ATT_MTU needs.
    public static func size(attMTU: Int) -> Int {
        let pdu = 4 + attMTU
        return receiveSize + pdu + attMTU + L2CAPOutbox.memorySize(slotSize: pdu) + transmitSize + HCICommandFlow.memorySize
    }

    /// Splits `region` (at least ``size(attMTU:)`` bytes, owned by the caller for the host's life).
    public init(region: UnsafeMutableRawBufferPointer, attMTU: Int) {
        precondition(region.count >= Self.size(attMTU: attMTU), "LEHostMemory needs \(Self.size(attMTU: attMTU)) bytes")
        pduSize = 4 + attMTU
        var offset = 0
        func take(_ n: Int) -> UnsafeMutableRawBufferPointer {
            defer { offset += n }
            return UnsafeMutableRawBufferPointer(rebasing: region[offset ..< offset + n])
        }
        receive = take(Self.receiveSize)
        reassembly = take(pduSize)
        response = take(attMTU)
        outbox = take(L2CAPOutbox.memorySize(slotSize: pduSize))
        transmit = take(Self.transmitSize)
        commands = take(HCICommandFlow.memorySize)
    }
}
