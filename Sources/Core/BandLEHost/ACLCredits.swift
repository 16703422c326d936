import BandHCI

/// ACL flow control toward the controller (Core 5.4 Vol 4 Part E §4.1.1): the host may have
/// at most as many ACL packets in the controller as LE Read Buffer Size announced; each
/// Number Of Completed Packets gives buffers back, and a disconnection frees the link's.
public struct ACLCredits: Equatable, Sendable {
    /// Packets the controller holds (LE Read Buffer Size).
    public private(set) var total = 0
    /// Packets the host may send now.
    public private(set) var available = 0
    /// Longest ACL payload the controller takes.
    public private(set) var packetLength = 27

    public init() {}

    /// The controller's buffers, from LE Read Buffer Size.
    public mutating func configure(packetLength: Int, count: Int) {
        self.packetLength = packetLength
        total = count
        available = count
    }

    /// One packet handed to the controller.
    public mutating func consume() {
        precondition(available > 0, "ACL packet sent without a controller buffer")
        available -= 1
    }

    /// `completed` packets of the link finished; returns how many more the controller
    /// claimed than the host had sent (0 when consistent), which are not credited.
    public mutating func complete(_ completed: Int) -> Int {
        let room = total - available
        let credited = min(completed, room)
        available += credited
        return completed - credited
    }

    /// The link ended: the controller flushed its packets (§7.7.5), so every buffer is free.
    public mutating func linkEnded() { available = total }
}
