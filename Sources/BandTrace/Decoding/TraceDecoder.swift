import BandATT
import BandGATT
import BandWire

/// A btsnoop trace as a stream of decoded events: every ATT PDU with the handle it concerns
/// and that handle's UUID, connections coming and going, and anything malformed.
///
/// The pipeline, one record at a time, nothing allocated per PDU in steady state:
/// ``BtsnoopRecordSource`` → ``ATTExtractor`` (HCI, L2CAP reassembly, CID 4) →
/// ``ATTPDULayout`` → ``AttributeDiscovery`` → BandGATT's `CharacteristicValue` for the
/// values of characteristics it knows (Heart Rate Measurement, RSC, Battery Level, …), which
/// decode into inline storage (no heap).
///
/// ```swift
/// let decoder = try TraceDecoder(path: "btsnoop_hci.log")
/// while let event = try decoder.next() {
///     guard case .att(let att) = event else { continue }
///     if case .heartRateMeasurement(let hr)? = att.characteristic { print(att.trace.unixMicroseconds, hr.beatsPerMinute) }
/// }
/// ```
///
/// A damaged file throws ``BtsnoopError`` after every event before the damage was returned.
/// Events are views: valid until the next call to ``next()``.
public final class TraceDecoder<Source: BtsnoopRecordSource> {
    public private(set) var source: Source
    public let extractor: ATTExtractor
    public let discovery: AttributeDiscovery
    private var deferred: ATTExtractor.Event?
    public private(set) var statistics = Statistics()

    public struct Statistics: Hashable, Sendable {
        public var records = 0
        public var attPDUs = 0
        public var malformedPDUs = 0
        /// PDUs whose characteristic value did not decode.
        public var malformedValues = 0
        public var anomalies = 0
    }

    /// Whether known characteristic values are decoded (off: the caller only wants PDUs).
    public var decodesValues: Bool

    public init(source: Source, overrides: [UInt16: BluetoothUUID] = [:], decodesValues: Bool = true,
                extractor: ATTExtractor = ATTExtractor()) {
        self.source = source
        self.decodesValues = decodesValues
        self.extractor = extractor
        self.discovery = AttributeDiscovery(overrides: overrides)
    }

    /// The next event, or nil at the end of the trace.
    public func next() throws(BtsnoopError) -> TraceDecoderEvent? {
        if let event = deferred {
            deferred = nil
            return decode(event)
        }
        while let record = try source.next() {
            statistics.records += 1
            let output = extractor.process(record, datalink: source.datalink)
            if let anomaly = output.anomaly {
                statistics.anomalies += 1
                deferred = output.event
                return .anomaly(anomaly)
            }
            if let event = output.event { return decode(event) }
        }
        return nil
    }

    private func decode(_ event: ATTExtractor.Event) -> TraceDecoderEvent {
        switch event {
        case .connection(let change):
            if case .disconnected = change.change {
                discovery.connectionClosed(adapter: change.adapter, connection: change.connection)
            }
            return .connection(change)
        case .att(let trace):
            statistics.attPDUs += 1
            let layout: ATTPDULayout
            do throws(ParseError) {
                layout = try ATTPDULayout(of: trace.pdu)
            } catch {
                statistics.malformedPDUs += 1
                return .att(DecodedATTEvent(trace: trace, handle: nil, type: nil, value: nil, error: error))
            }
            let (handle, type) = discovery.observe(trace, layout: layout)
            var decoded = DecodedATTEvent(trace: trace, handle: handle, type: type, value: nil, error: nil)
            if let range = layout.value {
                let value = UnsafeRawBufferPointer(rebasing: trace.pdu[range])
                decoded.value = value
                decoded.valueOffset = range.lowerBound
                if decodesValues, let type, CharacteristicValue.isKnown(type) {
                    do throws(ParseError) {
                        decoded.characteristic = try CharacteristicValue(uuid: type, bytes: value, baseOffset: range.lowerBound)
                    } catch {
                        statistics.malformedValues += 1
                        decoded.error = error
                    }
                }
            }
            return .att(decoded)
        }
    }
}

extension TraceDecoder where Source == BtsnoopFileReader {
    /// Streams the btsnoop file at `path`.
    public convenience init(path: String, overrides: [UInt16: BluetoothUUID] = [:]) throws(BtsnoopError) {
        self.init(source: try BtsnoopFileReader(path: path), overrides: overrides)
    }
}

public enum TraceDecoderEvent {
    case att(DecodedATTEvent)
    case connection(ConnectionTraceEvent)
    case anomaly(TraceAnomaly)
}

/// One ATT PDU from a trace with what the decoder worked out about it.
public struct DecodedATTEvent {
    /// Time, direction, connection and the PDU's bytes.
    public var trace: ATTTraceEvent
    /// The handle the PDU concerns (see ``ATTPDULayout``), including one taken from the request
    /// for Read and Write Responses.
    public var handle: UInt16?
    /// The attribute type of `handle`: learned from discovery or given with `--map`.
    public var type: BluetoothUUID?
    /// The attribute value the PDU carries (notification, indication, write, read response).
    public var value: UnsafeRawBufferPointer?
    /// Offset of `value` in the PDU, to turn value-relative error offsets into PDU offsets.
    public var valueOffset: Int
    /// The value decoded by the characteristic's UUID, when BandGATT knows that characteristic.
    public var characteristic: CharacteristicValue?
    /// Why the PDU, or the characteristic value it carries, is malformed (offset within the PDU).
    public var error: ParseError?

    public init(trace: ATTTraceEvent, handle: UInt16?, type: BluetoothUUID?, value: UnsafeRawBufferPointer?,
                valueOffset: Int = 0, error: ParseError?) {
        self.trace = trace
        self.handle = handle
        self.type = type
        self.value = value
        self.valueOffset = valueOffset
        self.error = error
        self.characteristic = nil
    }

    @inlinable public var opcode: ATTOpcode? { trace.pdu.first.map { ATTOpcode(rawValue: $0) } }
}
