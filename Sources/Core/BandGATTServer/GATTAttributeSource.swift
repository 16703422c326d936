import BandATT
import BandWire

/// Where a ``GATTServer`` finds its attributes: a handle-ordered table, the value of each
/// attribute as this connection may see it, and what a write does.
///
/// The server owns the protocol (Core 5.4 Vol 3 Part F §3.4: which request gets which
/// response or error, MTU limits, list paging); a source owns the data and its permissions.
/// Two sources exist: the firmware's static table (BandFirmware's `BandAttributeSource`, values
/// computed from the band's state) and the table a replay reconstructed from a trace
/// (BandReplay's `ReplayAttributeSource`).
///
/// Indices run 0..<``attributeCount`` in increasing handle order; handles are unique and
/// non-zero. The server is generic over its source (no existentials), so this compiles in
/// Embedded Swift.
public protocol GATTAttributeSource {
    /// What an accepted write means to the caller, handed back in ``GATTServerEvent/wrote(handle:effect:)``
    /// and acted on after the Write Response is out (an indication caused by a write follows
    /// its response, as a client expects).
    associatedtype WriteEffect

    /// Number of attributes in the table.
    var attributeCount: Int { get }

    /// The attribute at `index` (0 ≤ index < ``attributeCount``).
    func attribute(at index: Int) -> GATTServerAttribute

    /// Index of the first attribute whose handle is ≥ `handle`; ``attributeCount`` when none.
    func firstIndex(atOrAfter handle: UInt16) -> Int

    /// Calls `body` with the value of the attribute at `index` as a read on this connection
    /// returns it, or throws the error the read gets (Read Not Permitted, Insufficient
    /// Authentication, an application error…). The bytes are valid only during the call.
    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws(ATTErrorCode) -> R

    /// Checks and applies a write of `value` to the attribute at `index` (`withResponse`:
    /// Write Request; otherwise Write Command). Throws the error a Write Request gets.
    mutating func write(_ value: UnsafeRawBufferPointer, at index: Int, withResponse: Bool) throws(ATTErrorCode) -> WriteEffect
}

/// One row of an attribute table, as the server's discovery procedures need it.
public struct GATTServerAttribute: Equatable, Sendable {
    public var handle: UInt16
    /// The attribute type (a declaration UUID, a characteristic or descriptor UUID).
    public var type: BluetoothUUID
    /// For a service declaration, the service's UUID (Read By Group Type lists it); nil otherwise.
    public var serviceUUID: BluetoothUUID?
    /// Last handle of the group this attribute opens: a service's end group handle, the
    /// attribute itself otherwise (Find By Type Value, §3.4.3.4).
    public var groupEnd: UInt16

    @inlinable
    public init(handle: UInt16, type: BluetoothUUID, serviceUUID: BluetoothUUID? = nil, groupEnd: UInt16? = nil) {
        self.handle = handle
        self.type = type
        self.serviceUUID = serviceUUID
        self.groupEnd = groupEnd ?? handle
    }
}

extension GATTAttributeSource {
    /// Index of the attribute with exactly `handle`, or nil.
    @inlinable
    public func index(of handle: UInt16) -> Int? {
        guard handle != 0 else { return nil }
        let index = firstIndex(atOrAfter: handle)
        guard index < attributeCount, attribute(at: index).handle == handle else { return nil }
        return index
    }
}

extension GATTAttributeSource {
    /// The attributes of `type` whose handles lie in `range`, in handle order, each with its
    /// index: the one scan Find By Type Value, Read By Type and Read By Group Type share.
    /// A generic iterator, no existential or closure context, so it specializes in Embedded Swift.
    @inlinable
    public func attributes(ofType type: BluetoothUUID, in range: ATTHandleRange) -> AttributesOfType<Self> {
        AttributesOfType(source: self, type: type, range: range)
    }
}

/// ``GATTAttributeSource/attributes(ofType:in:)``: (index, attribute) pairs of one type in a
/// handle range.
public struct AttributesOfType<Source: GATTAttributeSource>: Sequence, IteratorProtocol {
    @usableFromInline let source: Source
    @usableFromInline let type: BluetoothUUID
    @usableFromInline let end: UInt16
    @usableFromInline var index: Int

    @inlinable
    init(source: Source, type: BluetoothUUID, range: ATTHandleRange) {
        self.source = source
        self.type = type
        end = range.end
        index = source.firstIndex(atOrAfter: range.start)
    }

    @inlinable
    public mutating func next() -> (index: Int, attribute: GATTServerAttribute)? {
        while index < source.attributeCount {
            let attribute = source.attribute(at: index)
            guard attribute.handle <= end else { return nil }
            index += 1
            if attribute.type == type { return (index - 1, attribute) }
        }
        return nil
    }
}
