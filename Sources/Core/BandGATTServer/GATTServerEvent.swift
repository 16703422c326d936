import BandATT

/// What one client PDU amounted to, beyond the response: for the caller that owns the link
/// (it sets the bearer's MTU after the response went out, performs write effects, sends the
/// next queued indication).
public enum GATTServerEvent<WriteEffect> {
    case none
    /// Exchange MTU answered; both sides use this ATT_MTU once the response is out (§3.4.2).
    case exchangedMTU(Int)
    /// The source accepted a write (request or command) of `handle`.
    case wrote(handle: UInt16, effect: WriteEffect)
    /// A write (request or command) of `handle` was refused; a request got `error` as its answer.
    case writeRefused(handle: UInt16, error: ATTErrorCode)
    /// Handle Value Confirmation: the outstanding indication is acknowledged (§3.4.7.3).
    case confirmedIndication
    /// A PDU a client must not send (a response, a notification), or a signed write the
    /// server does not support: ignored, no response.
    case unexpected(ATTOpcode)
}

extension GATTServerEvent: Equatable where WriteEffect: Equatable {}
extension GATTServerEvent: Sendable where WriteEffect: Sendable {}

/// The outcome of ``GATTServer/handle(_:source:into:)``.
public struct GATTServerResult<WriteEffect> {
    /// Bytes of the response written at the start of the output buffer; 0 when none is owed.
    public var responseLength: Int
    public var event: GATTServerEvent<WriteEffect>
    /// The error code when the response is an Error Response.
    public var error: ATTErrorCode?

    @inlinable
    public init(responseLength: Int, event: GATTServerEvent<WriteEffect>, error: ATTErrorCode?) {
        self.responseLength = responseLength
        self.event = event
        self.error = error
    }
}
