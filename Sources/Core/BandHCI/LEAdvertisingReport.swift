import BandWire

/// LE Advertising Report: the parameters of LE Meta event 0x3E, subevent 0x02, holding
/// one report. (Events with several reports are read one report at a time with
/// ``LEAdvertisingReport/Entry``.)
///
/// Core 5.4 Vol 4 Part E §7.7.65.2. The reports are laid out one after the other, as
/// controllers send them and as Wireshark `packet-bthci_evt.c` and BlueZ `monitor/packet.c`
/// read them.
///
/// | bytes | field |
/// |---|---|
/// | u8 | subevent code = 0x02 |
/// | u8 | number of reports (1–25) |
/// | per report: u8 | event type (0 ADV_IND … 4 SCAN_RSP) |
/// | u8 | address type |
/// | 6 | address |
/// | u8 | data length (0–31) |
/// | n | advertising data: AD structures {length u8, type u8, data} |
/// | i8 | RSSI, dBm (127 = not available) |
///
/// Trace decoding never parses these (they are most records of a phone's capture and carry
/// no ATT); this type exists to read them on demand and to write them into generated traces.
public struct LEAdvertisingReport: WireCodable, Equatable, Sendable {
    public static let subevent = LEMetaSubevent.advertisingReport

    /// One device's report.
    public struct Entry: WireCodable, Equatable, Sendable {
        public var eventType: UInt8
        public var advertiser: LEAddress
        public var data: FixedBytes<31>
        public var rssi: Int8

        public init(eventType: UInt8 = 0, advertiser: LEAddress, data: FixedBytes<31>, rssi: Int8) {
            self.eventType = eventType
            self.advertiser = advertiser
            self.data = data
            self.rssi = rssi
        }

        public init(parsing input: inout ByteCursor) throws(ParseError) {
            eventType = try input.readUInt8("advertising event type")
            let type = LEAddressType(rawValue: try input.readUInt8("address type"))
            advertiser = LEAddress(try BluetoothAddress(parsing: &input), type: type)
            let lengthOffset = input.offset
            let length = Int(try input.readUInt8("advertising data length"))
            guard length <= 31 else { throw ParseError(.invalidValue, at: lengthOffset, field: "advertising data length") }
            data = try FixedBytes(copying: try input.readBytes(length, "advertising data"), offset: input.offset)
            rssi = Int8(bitPattern: try input.readUInt8("RSSI"))
        }

        public func encode(into output: inout ByteWriter) {
            output.writeUInt8(eventType)
            output.writeUInt8(advertiser.type.rawValue)
            advertiser.address.encode(into: &output)
            output.writeUInt8(UInt8(data.count))
            data.write(to: &output)
            output.writeUInt8(UInt8(bitPattern: rssi))
        }

        /// The Complete (0x09) or Shortened (0x08) Local Name AD structure, if present
        /// (Core Specification Supplement Part A §1.2).
        public var localName: String? {
            let bytes = data.array
            var index = 0
            var shortened: String?
            while index < bytes.count {
                let length = Int(bytes[index])
                guard length > 0, index + 1 + length <= bytes.count else { break }
                let type = bytes[index + 1]
                let value = bytes[(index + 2)..<(index + 1 + length)]
                if type == 0x09 { return String(decoding: value, as: UTF8.self) }
                if type == 0x08 { shortened = String(decoding: value, as: UTF8.self) }
                index += 1 + length
            }
            return shortened
        }
    }

    public var entry: Entry

    public init(_ entry: Entry) { self.entry = entry }

    /// Reads an event holding exactly one report.
    public init(parsing input: inout ByteCursor) throws(ParseError) {
        guard try input.readUInt8("LE subevent code") == Self.subevent.rawValue else {
            throw ParseError(.invalidValue, at: input.offset - 1, field: "LE subevent code")
        }
        guard try input.readUInt8("number of reports") == 1 else {
            throw ParseError(.unsupported, at: input.offset - 1, field: "number of reports")
        }
        entry = try Entry(parsing: &input)
    }

    public func encode(into output: inout ByteWriter) {
        output.writeUInt8(Self.subevent.rawValue)
        output.writeUInt8(1)
        entry.encode(into: &output)
    }
}
