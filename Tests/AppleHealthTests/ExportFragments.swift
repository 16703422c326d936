import AppleHealth
import Foundation
import HealthModel

/// Hand-written export.xml fragments, shaped like the Health app's output.
enum Fragment {
    static let prologue = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData locale CDATA #REQUIRED>
        <!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
        <!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED>
        ]>
        <HealthData locale="en_US">
         <ExportDate value="2024-06-02 10:00:00 -0700"/>

        """

    /// A whole document around `body`.
    static func document(_ body: String) -> String { prologue + body + "\n</HealthData>\n" }

    static func record(_ type: String, value: String, unit: String? = "count", source: String = "Watch",
                       start: String = "2024-06-01 09:00:00 -0700", end: String = "2024-06-01 09:01:00 -0700",
                       device: String? = nil, children: String = "") -> String {
        var text = " <Record type=\"\(type)\" sourceName=\"\(source)\" sourceVersion=\"10.5\""
        if let device { text += " device=\"\(device)\"" }
        if let unit { text += " unit=\"\(unit)\"" }
        text += " creationDate=\"\(end)\" startDate=\"\(start)\" endDate=\"\(end)\" value=\"\(value)\""
        return children.isEmpty ? text + "/>\n" : text + ">\n" + children + " </Record>\n"
    }

    static let watchDevice = "&lt;&lt;HKDevice: 0x283c8a2b0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:9.0&gt;"
    static let phoneDevice = "&lt;&lt;HKDevice: 0x281b2c6e0&gt;, name:iPhone, manufacturer:Apple Inc., model:iPhone, hardware:iPhone14,5, software:17.5&gt;"
}

/// Parses `xml` in pieces of `pieceSize` bytes and collects what the parser hands on.
struct Parsed {
    var items: [AppleHealthItem] = []
    var summary = AppleHealthSummary()

    var quantities: [QuantitySample] { items.compactMap { if case .quantity(let s) = $0 { s } else { nil } } }
    var categories: [CategorySample] { items.compactMap { if case .category(let s) = $0 { s } else { nil } } }
    var workouts: [Workout] { items.compactMap { if case .workout(let w) = $0 { w } else { nil } } }
    var characteristics: [CharacteristicSetting] { items.flatMap { item -> [CharacteristicSetting] in if case .characteristics(let c) = item { c } else { [] } } }

    init(_ xml: String, pieceSize: Int = .max) throws {
        let parser = AppleHealthParser()
        let bytes = Array(xml.utf8)
        var offset = 0
        var collected: [AppleHealthItem] = []
        repeat {
            let end = min(bytes.count, offset + min(pieceSize, bytes.count))
            try bytes[offset..<end].withUnsafeBytes { piece in
                try parser.parse(piece, final: false) { collected.append($0) }
            }
            offset = end
        } while offset < bytes.count
        try parser.parse(UnsafeRawBufferPointer(start: nil, count: 0), final: true) { collected.append($0) }
        items = collected
        summary = parser.summary
    }

    /// The error parsing `xml` throws (nil when it parses).
    static func error(_ xml: String) -> AppleHealthError? {
        do { _ = try Parsed(xml) } catch let error as AppleHealthError { return error } catch { return nil }
        return nil
    }
}
