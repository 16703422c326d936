/// The longest a stored name may be: an app (source) id or version, or a device field.
///
/// A name is shown in every listing and held in memory by every cache in front of the store;
/// a 50 MB "source" is a mistake or an attack, not a name. 256 characters is four times the
/// longest person name and longer than any reverse-DNS bundle id or device string seen in an
/// Apple Health export.
public enum NameBound {
    public static let maximumCharacters = 256
    /// UTF-8 bytes beyond which no text can be within ``maximumCharacters`` (a character is at
    /// least one scalar of at most 4 bytes, and an overlong one is refused either way): checked
    /// first, so a huge field is refused without walking its characters.
    public static let maximumBytes = 256 * 16

    /// Why `text` cannot be a name (too long), or nil.
    public static func problem(_ text: String) -> String? {
        if text.utf8.count > maximumBytes || text.count > maximumCharacters {
            return "is longer than \(maximumCharacters) characters (\(text.utf8.count) bytes)"
        }
        return nil
    }

    /// Why a device's fields cannot be stored, naming the field, or nil.
    public static func problem(_ device: DeviceInfo) -> (field: String, problem: String)? {
        let fields: [(String, String?)] = [("name", device.name), ("manufacturer", device.manufacturer), ("model", device.model),
                                           ("hardware", device.hardwareIdentifier), ("firmware", device.firmwareVersion)]
        for (field, value) in fields {
            if let value, let problem = problem(value) { return (field, problem) }
        }
        return nil
    }
}
