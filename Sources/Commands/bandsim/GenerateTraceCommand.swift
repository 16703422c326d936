import BandTrace
import CommandKit

/// `bandsim generate-trace OUT`: writes a synthetic heart-rate session as a btsnoop file.
struct GenerateTraceCommand: Command {
    static let configuration = CommandConfiguration(
        name: "generate-trace",
        abstract: "Write a synthetic heart-rate session (discovery, notifications, adverts) as a btsnoop trace.",
        discussion: """
            The trace is what a phone's HCI snoop log shows for a band: advertising reports from other
            devices, a connection, full GATT discovery, CCCD writes, then Heart Rate Measurement
            notifications (RR intervals, energy, 8- and 16-bit values, some fragmented over 27-byte
            ACL packets) with RSC and Battery notifications mixed in. Deterministic for a given seed.
            Used by the decode benchmark (bench/decode) and the tshark cross-check.
            """,
        options: [
            .argument("OUT", help: "Path of the btsnoop file to write."),
            .option("notifications", value: "N", help: "Heart Rate Measurement notifications (default 1000)."),
            .option("datalink", value: "h4|monitor", help: "btsnoop datalink: 1002 H4 (default) or 2001 Linux monitor."),
            .option("seed", value: "N", help: "Seed for the measurement values (default fixed)."),
        ])

    var output: String
    var trace = SyntheticHeartRateTrace.Configuration()
    var datalink = BtsnoopDatalink.h4

    init(arguments: ParsedArguments) throws(UsageError) {
        output = arguments.required("OUT")
        if let n = try arguments.value("notifications", as: "a count ≥ 0", { Int($0).flatMap { $0 >= 0 ? $0 : nil } }) {
            trace.heartRateNotifications = n
        }
        if let seed = try arguments.value("seed", as: "an unsigned integer", { UInt64($0) }) {
            trace.seed = seed
        }
        switch arguments.value("datalink") {
        case nil, "h4": datalink = .h4
        case "monitor": datalink = .linuxMonitor
        case let other?: throw arguments.usageError("--datalink '\(other)' is not h4 or monitor")
        }
    }

    func run() throws -> ExitCode {
        do throws(BtsnoopError) {
            let writer = try BtsnoopWriter(path: output, datalink: datalink, bufferSize: 1 << 20)
            let summary = try SyntheticHeartRateTrace.write(trace, to: writer)
            try writer.close()
            CommandRunner.printError("""
                wrote \(output): \(summary.records) records, \(writer.byteCount) bytes, \(summary.attPDUs) ATT PDUs \
                (\(summary.heartRateNotifications) heart-rate notifications, \(summary.fragmentedPDUs) fragmented), \
                \(summary.advertisingReports) advertising reports
                """)
            return .success
        } catch {
            throw RuntimeFailure("bandsim generate-trace: \(output): \(error)")
        }
    }
}
