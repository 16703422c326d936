import BandGateway
import CommandKit
import FoundationEssentials
import ServiceSupport

struct StatusCommand: Command {
    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Ask the running 'band gateway' what it is doing: each device's link, last sync, minutes today, battery, last error.",
        discussion: """
            Asks over the gateway's control socket (mode 0600: its user and root only). Exits 1 when no
            gateway answers there.
            """,
        options: [GatewayCommand.controlSocketSpec, .flag("json", help: "Print one JSON object instead of text.")])

    var socketPath: String
    var json: Bool

    init(arguments: ParsedArguments) throws(UsageError) {
        socketPath = arguments.value("control-socket") ?? ControlSocketClient.defaultPath(name: "gateway.sock")
        json = arguments.flag("json")
    }

    mutating func run() throws -> ExitCode {
        let answer: [UInt8]
        do { answer = try ControlSocketClient.request(json ? "status --json" : "status", path: socketPath) } catch {
            throw RuntimeFailure("band status: \(error)")
        }
        // The gateway escaped what devices sent; the answer is printed as it came.
        writeLine(String(decoding: answer, as: UTF8.self).trimmingSuffix("\n"))
        return .success
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

/// What `band status` prints for people: the status line, then one line per device, everything a
/// device or the store said escaped.
enum GatewayStatusText {
    static func render(_ snapshot: GatewaySnapshot, at now: Date) -> String {
        var lines = [snapshot.statusLine]
        for device in snapshot.devices {
            var parts = ["\(device.address.terminalEscaped) \(device.kind.rawValue)" + (device.person.map { " of \($0.terminalEscaped)" } ?? "")]
            if device.connected {
                parts.append("connected")
            } else {
                parts.append(device.lastSeen.map { "away, last seen \(utcTimestamp($0))" } ?? "never seen")
            }
            if let sync = device.lastSync { parts.append("synced \(utcTimestamp(sync))") }
            if let cursor = device.historyCursor { parts.append("cursor \(cursor.stored)") }
            if let lag = device.historyLag(at: now) { parts.append("history \(Int(lag)) s behind") }
            parts.append("\(device.minutesToday) min today")
            if let battery = device.battery { parts.append("battery \(battery)%") }
            if device.readingsDropped > 0 { parts.append("\(device.readingsDropped) readings dropped (notifying too fast)") }
            if let error = device.lastError { parts.append("last error: \(error.terminalEscaped)") }
            lines.append("  " + parts.joined(separator: ", "))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
