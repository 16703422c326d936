import BandBlueZ
import BandLink
import BandWire
import CommandKit

/// Options several subcommands share, parsed once.
enum RadioOptions {
    static let hci = OptionSpec.option("hci", value: "hciN", help: "Adapter to use (default hci0).")
    static let keys = OptionSpec.option("keys", value: "FILE", help: "Long-term key file (mode 0600): load at start, save new keys.")

    static func adapter(_ arguments: ParsedArguments) throws(UsageError) -> String {
        let name = arguments.value("hci") ?? "hci0"
        do throws(AddressSyntaxError) { _ = try AdapterName.index(of: name) } catch {
            throw arguments.usageError("--hci: \(error)")
        }
        return name
    }

    /// `5s`, `250ms`, `2m` or a bare number of seconds.
    static func duration(_ arguments: ParsedArguments, _ name: String, default fallback: Duration) throws(UsageError) -> Duration {
        guard let text = arguments.value(name) else { return fallback }
        let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000)]
        for (suffix, millis) in units where text.hasSuffix(suffix) {
            if let value = Int64(text.dropLast(suffix.count)), value >= 0 { return .milliseconds(value * millis) }
        }
        if let seconds = Int64(text), seconds >= 0 { return .seconds(seconds) }
        throw arguments.usageError("--\(name) '\(text)' is not a duration (e.g. 5s, 250ms, 2m)")
    }

    static func uuids(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> [BluetoothUUID] {
        var result: [BluetoothUUID] = []
        for text in arguments.values(name) {
            guard let uuid = BluetoothUUID(string: text) else { throw arguments.usageError("--\(name) '\(text)' is not a UUID") }
            result.append(uuid)
        }
        return result
    }

    static func peer(_ arguments: ParsedArguments, _ name: String) throws(UsageError) -> LEAddress? {
        guard let text = arguments.value(name) else { return nil }
        do throws(AddressSyntaxError) { return try LEAddress(text) } catch { throw arguments.usageError("--\(name): \(error)") }
    }

    static func security(_ arguments: ParsedArguments) throws(UsageError) -> SecurityLevel {
        switch arguments.value("security") ?? "low" {
        case "low": return .low
        case "medium": return .medium
        case "high": return .high
        case let other: throw arguments.usageError("--security '\(other)' must be low, medium or high")
        }
    }
}

/// Prints a line at once (the CI log interleaves two processes).
func say(_ text: String) {
    StandardOutput.shared.lineNow(text)
}
