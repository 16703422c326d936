import BandATT
import BandGATT
import BandWire

/// A trace (btsnoop, pcapng, pcap) as a stream of decoded events: every ATT PDU with the handle it concerns
/// and that handle's UUID, connections coming and going, and anything malformed.
///
/// The pipeline, one record at a time, nothing allocated per PDU in steady state:
/// ``TraceRecordSource`` → ``ATTExtractor`` (HCI, L2CAP reassembly, CID 4) →
/// ``ATTPDULayout`` → ``AttributeDiscovery``; then ``DecodedATTEvent/characteristicValue()``
/// decodes the value with BandGATT's `CharacteristicValue` (Heart Rate Measurement, RSC,
/// Battery Level, …) into inline storage (no heap). Values are decoded on request, not
/// carried in the event: a decoded value is up to ~530 bytes, and copying it along with every
/// event cost more than the rest of the pipeline.
///
/// ```swift
/// let decoder = try TraceDecoder(path: "btsnoop_hci.log")
/// while let event = try decoder.next() {
///     guard case .att(let att) = event else { continue }
///     if case .heartRateMeasurement(let hr)? = try? att.characteristicValue() {
///         print(att.trace.unixMicroseconds, hr.beatsPerMinute)
///     }
/// }
/// ```
///
/// A damaged file throws its source's error (``BtsnoopError``, ``CaptureFileError``) after every event before the damage was returned.
/// Events are views: valid until the next call to ``next()``.
public final class TraceDecoder<Source: TraceRecordSource> {
    public let extractor: ATTExtractor
    public let discovery: AttributeDiscovery
    /// The source, the event held back behind an anomaly, and the counters.
    // Unchecked: see "Exclusivity" in docs/performance.md (one thread, no callback during an access).
    @usableFromInline @exclusivity(unchecked) var pipeline: Pipeline

    /// The same type for every source, so output code need not be generic over it.
    public typealias Statistics = TraceDecoderStatistics

    public init(source: Source, overrides: [UInt16: BluetoothUUID] = [:],
                extractor: ATTExtractor = ATTExtractor()) {
        self.extractor = extractor
        self.discovery = AttributeDiscovery(overrides: overrides)
        self.pipeline = Pipeline(source: source)
    }

    public var source: Source { pipeline.source }
    public var statistics: Statistics { pipeline.statistics }

    /// The next event, or nil at the end of the trace.
    // Callers in other modules cannot specialise a generic class's methods; pre-specialise the
    // sources BandKit ships so the per-record loop makes no witness-table calls.
    @_specialize(exported: true, where Source == BtsnoopFileReader)
    @_specialize(exported: true, where Source == BtsnoopMemoryReader)
    @_specialize(exported: true, where Source == PcapngFileReader)
    @_specialize(exported: true, where Source == PcapFileReader)
    @_specialize(exported: true, where Source == PcapngMemoryReader)
    @_specialize(exported: true, where Source == PcapMemoryReader)
    public func next() throws(Source.Failure) -> TraceDecoderEvent? {
        if let event = pipeline.deferred {
            pipeline.deferred = nil
            return decode(event)
        }
        while let record = try pipeline.source.nextTraceRecord() {
            pipeline.statistics.records += 1
            let output = extractor.process(record)
            if let anomaly = output.anomaly {
                pipeline.statistics.anomalies += 1
                pipeline.deferred = output.event
                return .anomaly(anomaly)
            }
            if let event = output.event { return decode(event) }
        }
        return nil
    }

    /// Decodes the rest of the trace into `handler`, event by event, and returns the damage that
    /// ended it early (nil at a clean end; everything before the damage has been handled).
    ///
    /// The loop for tools that visit every PDU (`bandsim decode`, benchmarks): each event is
    /// built once and lent to the handler, where ``next()`` returns ~170-byte events by value
    /// through every layer (half the copying `bandsim decode --json` did). The handler may read
    /// ``statistics`` but must not call ``next()`` from inside.
    ///
    /// Inlinable so a caller in another module specialises it for its source and handler: the
    /// per-record call into the source is then direct, with its error type known, instead of a
    /// witness call that looks up the error's metadata at every record.
    @inlinable
    public func decodeAll<Handler: TraceEventHandler>(into handler: inout Handler) throws(Handler.Failure) -> Source.Failure? {
        if let event = pipeline.deferred {
            pipeline.deferred = nil
            try deliver(event, to: &handler)
        }
        while true {
            let record: TraceRecord
            do throws(Source.Failure) {
                guard let next = try pipeline.source.nextTraceRecord() else { return nil }
                record = next
            } catch {
                return error
            }
            pipeline.statistics.records += 1
            let output = extractor.process(record)
            if let anomaly = output.anomaly {
                pipeline.statistics.anomalies += 1
                try handler.handle(anomaly)
            }
            if let event = output.event { try deliver(event, to: &handler) }
        }
    }

    @inlinable @inline(__always)
    func deliver<Handler: TraceEventHandler>(_ event: ATTExtractor.Event, to handler: inout Handler) throws(Handler.Failure) {
        switch event {
        case .connection(let change):
            connectionChanged(change)
            try handler.handle(change)
        case .att(let trace):
            try handler.handle(decodedATTEvent(trace, discovery: discovery, statistics: &pipeline.statistics))
        }
    }

    @inline(__always)
    private func decode(_ event: ATTExtractor.Event) -> TraceDecoderEvent {
        switch event {
        case .connection(let change):
            connectionChanged(change)
            return .connection(change)
        case .att(let trace):
            return .att(decodeATT(trace))
        }
    }

    @usableFromInline func connectionChanged(_ change: ConnectionTraceEvent) {
        if case .disconnected = change.change {
            discovery.connectionClosed(adapter: change.adapter, connection: change.connection)
        }
    }

    @inline(__always)
    private func decodeATT(_ trace: ATTTraceEvent) -> DecodedATTEvent {
        decodedATTEvent(trace, discovery: discovery, statistics: &pipeline.statistics)
    }

    @usableFromInline struct Pipeline {
        @usableFromInline var source: Source
        @usableFromInline var deferred: ATTExtractor.Event?
        @usableFromInline var statistics = Statistics()

        init(source: Source) { self.source = source }
    }
}

/// The PDU's layout, the handle it concerns and that handle's type, and its value.
///
/// Outside the generic decoder so that a caller specialised in another module (an inlined
/// ``TraceDecoder/decodeAll(into:)``) calls non-generic code here: a method of the decoder
/// would find its state's layout through the generic metadata at every PDU.
@usableFromInline
func decodedATTEvent(_ trace: ATTTraceEvent, discovery: AttributeDiscovery,
                     statistics: inout TraceDecoderStatistics) -> DecodedATTEvent {
    statistics.attPDUs += 1
    let layout: ATTPDULayout
    do throws(ParseError) {
        layout = try ATTPDULayout(of: trace.pdu)
    } catch {
        statistics.malformedPDUs += 1
        return DecodedATTEvent(trace: trace, handle: nil, type: nil, value: nil, error: error)
    }
    let (handle, type) = discovery.observe(trace, layout: layout)
    var decoded = DecodedATTEvent(trace: trace, handle: handle, type: type, value: nil, error: nil)
    if let range = layout.value {
        decoded.value = UnsafeRawBufferPointer(rebasing: trace.pdu[range])
        decoded.valueOffset = range.lowerBound
    }
    return decoded
}

/// What a ``TraceDecoder`` has seen so far.
public struct TraceDecoderStatistics: Hashable, Sendable {
    public var records = 0
    public var attPDUs = 0
    public var malformedPDUs = 0
    public var anomalies = 0
}

/// Receives a trace's events in order from ``TraceDecoder/decodeAll(into:)``. Events are lent
/// for the duration of the call: their bytes are views into the decoder's buffers.
public protocol TraceEventHandler {
    associatedtype Failure: Error = Never
    mutating func handle(_ event: borrowing DecodedATTEvent) throws(Failure)
    mutating func handle(_ event: ConnectionTraceEvent) throws(Failure)
    mutating func handle(_ anomaly: TraceAnomaly) throws(Failure)
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
    /// Why the PDU is malformed (offset within the PDU), if it is.
    public var error: ParseError?

    public init(trace: ATTTraceEvent, handle: UInt16?, type: BluetoothUUID?, value: UnsafeRawBufferPointer?,
                valueOffset: Int = 0, error: ParseError?) {
        self.trace = trace
        self.handle = handle
        self.type = type
        self.value = value
        self.valueOffset = valueOffset
        self.error = error
    }

    /// The value decoded by its characteristic's UUID with BandGATT; nil when the PDU carries
    /// no value, its handle's UUID is unknown, or BandGATT has no decoder for it. A value that
    /// breaks its characteristic's layout throws, with the offset within the PDU.
    public func characteristicValue() throws(ParseError) -> CharacteristicValue? {
        guard let type, let value, CharacteristicValue.isKnown(type) else { return nil }
        return try CharacteristicValue(uuid: type, bytes: value, baseOffset: valueOffset)
    }

    @inlinable public var opcode: ATTOpcode? { trace.pdu.first.map { ATTOpcode(rawValue: $0) } }
}
