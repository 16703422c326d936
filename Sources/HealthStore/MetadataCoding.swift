import HealthModel

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
                out += scalar.value < 0x10 ? "\\u000" : "\\u001"
                out += String(scalar.value & 0xF, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// The object `encode` wrote; a value that is not a string (only another writer could have
    /// stored one) comes back as its JSON text; anything but an object is no metadata.
    static func decode(_ text: String?) -> [String: String] {
        guard var text else { return [:] }
        let parsed = text.withUTF8 { bytes in try? JSONLineParser.parse(bytes) }
        guard case .object(let members)? = parsed else { return [:] }
        var metadata: [String: String] = [:]
        for (key, value) in members {
            switch value {
            case .string(let string): metadata[key] = string
            case .number(let number): metadata[key] = number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
            case .bool(let bool): metadata[key] = bool ? "true" : "false"
            case .null, .object, .array: continue
            }
        }
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
