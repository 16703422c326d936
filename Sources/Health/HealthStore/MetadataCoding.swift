import HealthModel
import JSONOutput

/// Metadata is stored as a JSON object with sorted keys (NULL when empty).
enum MetadataCoding {
    static func encode(_ metadata: [String: String]) -> String? {
        if metadata.isEmpty { return nil }
        var json = JSONWriter(sink: JSONBuffer())
        json.beginObject()
        for key in metadata.keys.sorted() {
            json.key(escaping: key)
            json.value(metadata[key]!)
        }
        json.endObject()
        return json.text
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
        JSON.text { json in
            json.beginArray()
            for item in items { json.value(item) }
            json.endArray()
        }
    }
}
