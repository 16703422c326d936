import Foundation

/// Metadata is stored as a JSON object with sorted keys (NULL when empty).
enum MetadataCoding {
    static func encode(_ metadata: [String: String]) -> String? {
        if metadata.isEmpty { return nil }
        var out = "{"
        for (index, key) in metadata.keys.sorted().enumerated() {
            if index > 0 { out += "," }
            appendString(key, to: &out)
            out += ":"
            appendString(metadata[key]!, to: &out)
        }
        return out + "}"
    }

    static func appendString(_ text: String, to out: inout String) {
        out += "\""
        // Nearly every value needs no escaping: append it whole instead of scalar by scalar.
        if !text.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    static func decode(_ text: String?) -> [String: String] {
        guard let text, let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [:] }
        var metadata: [String: String] = [:]
        for (key, value) in object { metadata[key] = value as? String ?? "\(value)" }
        return metadata
    }

    /// A JSON array of strings, bound as one parameter and expanded in SQL with `json_each`.
    static func array(_ items: [String]) -> String {
        var out = "["
        for (index, item) in items.enumerated() {
            if index > 0 { out += "," }
            appendString(item, to: &out)
        }
        return out + "]"
    }
}
