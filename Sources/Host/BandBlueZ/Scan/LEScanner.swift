import BandHCI
import BandKitSystem
import BandLink
import BandWire

/// An LE scan on one adapter through a raw HCI socket: LE Set Scan Parameters, LE Set Scan
/// Enable, then LE Advertising Report events (Core 5.4 Vol 4 Part E §7.8.10, §7.8.11,
/// §7.7.65.2).
///
/// Controllers that refuse the legacy commands because the host already used extended ones
/// (Command Disallowed, §3.1.1 "legacy and extended advertising") or do not know them are
/// driven with the extended commands instead (§7.8.64/65, Extended Advertising Reports).
///
/// The scan is active by default so scan responses (where a band usually puts its name)
/// arrive too; ``Discovery`` merges them per address.
public final class LEScanner {
    public let deviceIndex: UInt16
    public let active: Bool
    public private(set) var usesExtendedCommands = false
    public private(set) var isScanning = false
    private let hci: HCIRawSocket
    private var pending: [AdvertisingReport] = []

    /// Opens the adapter (`hci0`, `hci1`, …) for scanning; ``start()`` begins.
    public init(adapter: String, active: Bool = true, system: SystemCalls = .live) throws(LinkError) {
        let index: UInt16
        do throws(AddressSyntaxError) { index = try AdapterName.index(of: adapter) } catch {
            throw .system(error.description, .noSuchDevice)
        }
        self.deviceIndex = index
        self.active = active
        self.hci = try HCIRawSocket(deviceIndex: index, system: system)
    }

    /// Readable when reports are waiting (for callers multiplexing the scan with other work).
    public var pollDescriptor: Int32 { hci.pollDescriptor }

    /// Starts scanning: interval and window 10 ms (0x0010 × 0.625 ms), duplicates not filtered
    /// so RSSI keeps updating. Restarts cleanly if the controller was already scanning.
    public func start() throws(LinkError) {
        let collect: (HCIEventPacket) -> Void = { [self] event in collectReports(event) }
        // Stop whatever scan is running (ours from an earlier run, or the kernel's); a
        // controller that was not scanning may answer Command Disallowed, which is fine.
        _ = try? hci.run(.leSetScanEnable(false, filterDuplicates: false), otherEvent: collect)
        let parameters = try hci.run(.leSetScanParameters(active: active, interval: 0x0010, window: 0x0010), otherEvent: collect)
        switch parameters.status {
        case .some(.success):
            usesExtendedCommands = false
            try hci.runExpectingSuccess(.leSetScanEnable(true, filterDuplicates: false), otherEvent: collect)
        case .some(.commandDisallowed), .some(.unknownCommand):
            usesExtendedCommands = true
            _ = try? hci.run(.leSetExtendedScanEnable(false, filterDuplicates: false), otherEvent: collect)
            try hci.runExpectingSuccess(.leSetExtendedScanParameters(active: active, interval: 0x0010, window: 0x0010), otherEvent: collect)
            try hci.runExpectingSuccess(.leSetExtendedScanEnable(true, filterDuplicates: false), otherEvent: collect)
        default:
            throw .system("LE Set Scan Parameters on hci\(deviceIndex): \(parameters.status.map(String.init(describing:)) ?? "empty reply")", .ioError)
        }
        isScanning = true
    }

    /// The next report, or nil once `timeout` has passed without one.
    public func nextReport(timeout: Duration?) throws(LinkError) -> AdvertisingReport? {
        let deadline = timeout.map { ContinuousClock.now.advanced(by: $0) }
        while pending.isEmpty {
            let remaining = deadline.map { max(.zero, $0 - ContinuousClock.now) }
            guard let event = try hci.nextEvent(timeout: remaining) else { return nil }
            collectReports(event)
        }
        return pending.removeFirst()
    }

    /// Stops scanning (best effort: the adapter may already be gone). Idempotent.
    public func stop() {
        guard isScanning else { return }
        isScanning = false
        let command: HCICommandPacket = usesExtendedCommands
            ? .leSetExtendedScanEnable(false, filterDuplicates: false)
            : .leSetScanEnable(false, filterDuplicates: false)
        _ = try? hci.run(command)
    }

    /// Stops and closes the socket.
    public func close() {
        stop()
        hci.close()
    }

    deinit { close() }

    private func collectReports(_ event: HCIEventPacket) {
        if case .advertisingReports(let reports, _) = event.body { pending += reports }
    }
}
