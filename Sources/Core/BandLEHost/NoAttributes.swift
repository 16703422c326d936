import BandATT
import BandGATTServer

/// The attribute source of a host whose owner serves ATT itself (its ``LEHostIO`` takes
/// every ATT PDU, as `bandsim serve --hci-controller` and the band's hosted chip image do): an
/// empty table the host's own GATT server never reads.
public struct NoAttributes: GATTAttributeSource {
    public typealias WriteEffect = Never
    public init() {}
    public var attributeCount: Int { 0 }
    public func attribute(at index: Int) -> GATTServerAttribute { preconditionFailure("an empty table has no attributes") }
    public func firstIndex(atOrAfter handle: UInt16) -> Int { 0 }
    public func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R { throw .attributeNotFound }
    public mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> Never {
        throw .attributeNotFound
    }
}
