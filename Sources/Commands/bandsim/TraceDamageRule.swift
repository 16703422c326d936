import BandReplay
import CommandKit

/// bandsim's one rule for damaged traces, shared by `decode` and `replay` (docs/protocol.md,
/// "Damaged traces"):
///
/// - damage is a record the decoder cannot use — a malformed HCI packet or L2CAP fragment, a
///   malformed ATT PDU, a file cut off inside its last record — or broken btsnoop framing, after
///   which nothing can be read;
/// - without `--keep-going` the first damage ends the command: everything before it has been
///   output, the message names the record and byte offset, exit 65;
/// - with `--keep-going` damaged records are passed over to the end of the file: the first
///   ``listedLimit`` are listed on stderr, the rest only counted in one summary line (a file of
///   millions of damaged records costs eleven lines, not millions), exit 0 — unless the framing
///   broke, which still exits 65;
/// - a file that cannot be read at all is a failure, exit 1.
struct TraceDamageRule {
    static let listedLimit = 10
    static let keepGoingHelp = "Go past damaged records (the first 10 listed, the rest counted) instead of stopping at the first."

    let command: String
    let path: String
    let keepGoing: Bool
    private(set) var passedOver = 0
    private(set) var byKind: [String: Int] = [:]

    init(command: String, path: String, keepGoing: Bool) {
        self.command = command
        self.path = path
        self.keepGoing = keepGoing
    }

    /// Whether reading may go on past `damage`. Lists it while under the limit and counts it.
    mutating func passOver(_ damage: TraceDamage) -> Bool {
        guard keepGoing, damage.leavesRestReadable || damage.kind == .truncatedTail else { return false }
        passedOver += 1
        byKind[Self.name(of: damage.kind), default: 0] += 1
        if passedOver <= Self.listedLimit { CommandRunner.printError("\(command): \(path): skipped \(damage)") }
        return true
    }

    /// The count of passed-over damage, one line on stderr (nothing when there was none).
    func printSummary() {
        Self.printSummary(command: command, path: path, count: passedOver, byKind: byKind)
    }

    /// For a reader that kept its own list (replay): lists the first ``listedLimit`` of `skipped`
    /// and prints the summary of `count` records, `byKind`.
    static func report(command: String, path: String, skipped: [TraceDamage], count: Int, byKind: [TraceDamage.Kind: Int]) {
        for damage in skipped.prefix(listedLimit) { CommandRunner.printError("\(command): \(path): skipped \(damage)") }
        var named: [String: Int] = [:]
        for (kind, n) in byKind { named[name(of: kind), default: 0] += n }
        printSummary(command: command, path: path, count: count, byKind: named)
    }

    private static func printSummary(command: String, path: String, count: Int, byKind: [String: Int]) {
        guard count > 0 else { return }
        let kinds = byKind.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        let unlisted = count > listedLimit ? " (\(count - listedLimit) not listed)" : ""
        CommandRunner.printError("\(command): \(path): \(count) damaged records skipped\(unlisted): \(kinds)")
    }

    /// The failure `damage` ends the command with: 65 for bad data, 1 when the file cannot be read.
    func failure(_ damage: TraceDamage) -> any CommandFailure {
        guard damage.isBadData else { return RuntimeFailure("\(command): \(path): \(damage)") }
        var message = "\(command): \(path): \(damage)"
        if !keepGoing, damage.leavesRestReadable || damage.kind == .truncatedTail {
            message += " (--keep-going goes past damaged records)"
        }
        return DataError(message)
    }

    static func name(of kind: TraceDamage.Kind) -> String {
        switch kind {
        case .framing: "broken framing"
        case .truncatedTail: "truncated last record"
        case .packet: "malformed HCI/L2CAP"
        case .attPDU: "malformed ATT PDU"
        case .io: "read error"
        }
    }
}
