import BandHCI
internal import CBlueZ

/// The raw HCI socket filter (`struct hci_filter`, `SOL_HCI`/`HCI_FILTER`): which packet
/// types and event codes the kernel delivers to this socket.
struct HCIFilter {
    var storage = hci_filter()

    /// Events only, of the given codes.
    init(events: [HCIEventCode]) {
        storage.type_mask = 1 << UInt32(HCIEventPacket.packetType)
        withUnsafeMutableBytes(of: &storage.event_mask) { mask in
            for event in events {
                let bit = Int(event.rawValue)
                mask[bit / 8] |= 1 << UInt8(bit % 8)
            }
        }
        storage.opcode = 0
    }
}
