/// A value the server pushed: a Handle Value Notification or Indication (Core 5.4 Vol 3 Part G
/// §4.10, §4.11).
///
/// `value` points into the client's receive buffer and is valid only during the handler call;
/// copy what must outlive it. That keeps the notification path free of allocation: a band
/// streaming heart rate at 1 Hz for a week costs no heap traffic here.
public struct GATTValueEvent {
    public enum Kind: Sendable, Equatable {
        case notification
        /// Confirmed by the client after the handler returns (§4.11.1).
        case indication
    }

    public var kind: Kind
    /// The characteristic value handle.
    public var handle: UInt16
    public var value: UnsafeRawBufferPointer
}
