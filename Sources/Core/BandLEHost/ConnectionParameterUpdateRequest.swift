import BandWire

/// Connection Parameter Update Request's data (Core 5.4 Vol 3 Part A §4.20): the peripheral
/// asks the central for another connection interval, latency and supervision timeout.
///
/// | bytes | field |
/// |---|---|
/// | u16 LE | interval min (1.25 ms, 6…3200) |
/// | u16 LE | interval max (1.25 ms, 6…3200) |
/// | u16 LE | peripheral latency (0…499) |
/// | u16 LE | supervision timeout (10 ms, 10…3200) |
public struct ConnectionParameterUpdateRequest: WireCodable, Hashable, Sendable {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// Whether the values are within the specification's ranges (Vol 6 Part B §4.5.1) and the
    /// timeout outlasts the longest interval with latency: (1 + latency) × max × 2 < timeout × 8.
    public var isValid: Bool {
        (6...3200).contains(intervalMin) && (intervalMin...3200).contains(intervalMax) && latency <= 499
            && (10...3200).contains(supervisionTimeout)
            && (1 + Int(latency)) * Int(intervalMax) * 2 < Int(supervisionTimeout) * 8
    }

    public init(parsing input: inout ByteCursor) throws(ParseError) {
        intervalMin = try input.readUInt16LE("interval min")
        intervalMax = try input.readUInt16LE("interval max")
        latency = try input.readUInt16LE("peripheral latency")
        supervisionTimeout = try input.readUInt16LE("supervision timeout")
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt16LE(intervalMin)
        output.writeUInt16LE(intervalMax)
        output.writeUInt16LE(latency)
        output.writeUInt16LE(supervisionTimeout)
    }
}
