import BandTrace
import BandWire
import CommandKit

/// JSON for decoded characteristic values and decode errors, shared by the JSON formats.
enum CharacteristicJSON {
    /// Writes `"key": {...}` for a characteristic BandKit decodes; nothing for others.
    static func write(type: BluetoothUUID, value: UnsafeRawBufferPointer, valueOffset: Int, to json: JSONLineWriter) {
        _ = (type, value, valueOffset, json)
    }

    /// `{"kind": "truncated", "offset": 3, "field": "heart rate value"}`.
    static func write(error: ParseError, to json: JSONLineWriter) {
        json.beginObject()
        json.key("kind"); json.value(error.kind.rawValue)
        json.key("offset"); json.value(error.offset)
        json.key("field"); json.value(error.field.description)
        json.endObject()
    }
}
