#if canImport(Glibc)
import Glibc
#endif
import BandBlueZ
import BandFirmware
import BandLink
import BandPeers
import BandWire
import CommandKit
import SocketSecurity
import BandKitSystem

/// `bandsim serve --profile infinitime|hr-strap`: a third-party peer instead of the BandKit band
/// (BandPeers: ``InfiniTimePeer``, ``HeartRateStrapPeer``), on the same links.
struct ProfileServe {
    enum Profile: String {
        case infinitime
        case heartRateStrap = "hr-strap"
    }

    /// Options of `serve` that only the BandKit band has.
    static let bandOnlyOptions = ["scenario", "record", "confirm", "state", "history-days", "history-capacity", "fault",
                                  "drop-rate", "corrupt-rate", "clock-drift", "deterministic-secrets"]

    var profile: Profile
    var startMs: PeerMilliseconds
    var utcOffsetSeconds: Int
    var seed: UInt64
    var speed: Double
    var battery: UInt8?
    var rebootsAfter: [PeerMilliseconds]
    var socketPath: String
    var hciAdapter: String?
    var truthPath: String?
    var exitAfterConnections: Int?
    var exitAfterDuration: Duration?
    /// `--passkey`: the six digits the watch shows when pairing on the socket link (default: a
    /// fresh random one per pairing, printed on stderr).
    var passkey: UInt32?

    func run() throws -> ExitCode {
        let truth = try truthPath.map { try TruthFile(path: $0) }
        let writeTruth: (String) -> Void = { line in truth?.write(line) }
        switch profile {
        case .infinitime:
            var configuration = InfiniTimePeer.Configuration(start: startMs, utcOffsetSeconds: utcOffsetSeconds)
            configuration.seed = seed
            configuration.rebootsAfter = rebootsAfter
            if let battery { configuration.battery = battery }
            let watch = InfiniTimePeer(configuration)
            watch.onMinute = { writeTruth($0.json) }
            return try serve(watch, name: InfiniTimePeer.deviceName, advertising: [])
        case .heartRateStrap:
            var configuration = HeartRateStrapPeer.Configuration(start: startMs, utcOffsetSeconds: utcOffsetSeconds)
            configuration.seed = seed
            configuration.rebootsAfter = rebootsAfter
            if let battery { configuration.battery = battery }
            let strap = HeartRateStrapPeer(configuration)
            strap.onMinute = { writeTruth($0.json) }
            return try serve(strap, name: "HRM-2 Strap", advertising: [BluetoothUUID(0x180D)])
        }
    }

    private func serve<Device: PeerDevice>(_ device: Device, name: String, advertising services: [BluetoothUUID]) throws -> ExitCode {
        let log: (String) -> Void = { [unowned device] message in
            CommandRunner.printError("[\(PeerTimeText.iso8601(device.trueTime))] \(message)")
        }
        let listener: any PeerListener
        do throws(LinkError) {
            if let hciAdapter {
                // The kernel runs SMP: the watch declares its display, so a reader with a keyboard
                // gets passkey entry and the kernel's passkey is logged (Passkey Notify).
                listener = try HCIBandListener(adapter: hciAdapter, name: name, serviceUUIDs: services,
                                               ioCapability: profile == .infinitime ? BlueZAdapter.displayOnly : nil, log: log)
            } else {
                try SocketPath.prepareDirectory(SocketPath.directory(of: socketPath))
                listener = try SocketPeerListener(path: socketPath)
            }
        } catch {
            throw RuntimeFailure("bandsim serve: cannot listen on \(hciAdapter ?? socketPath): \(error)")
        }
        defer { listener.close() }
        let stop = try? StopSignals()
        defer { stop?.restore() }
        CommandRunner.printError("bandsim: \(profile.rawValue) profile: \(device.banner); listening on \(hciAdapter ?? socketPath); speed ×\(speed)")
        var options = PeerRunner<Device>.Options()
        options.speed = speed
        options.exitAfterConnections = exitAfterConnections
        options.exitAfterDuration = exitAfterDuration
        options.log = log
        if hciAdapter == nil {
            // Over --hci the kernel runs SMP; on the socket link the device's own responder does.
            options.security = SocketPairingResponder(ioCapability: profile.ioCapability, requiresPasskey: profile == .infinitime,
                                                      fixedPasskey: passkey, random: Self.kernelRandom)
        }
        let runner = PeerRunner(device: device, listener: listener, options: options)
        let ending = try runner.run(stop: stop)
        CommandRunner.printError("bandsim: \(ending)")
        return .success
    }
}

extension ProfileServe {
    /// The kernel's random bytes through BandKitSystem's one source; bandsim ends with a message if it ever fails.
    static func kernelRandom(_ count: Int) -> [UInt8] {
        do { return try KernelRandom.bytes(count: count) } catch {
            CommandRunner.printError("bandsim serve: pairing needs random bytes: \(error)")
            exit(1)
        }
    }
}

extension ProfileServe.Profile {
    /// What the device declares in SMP: InfiniTime shows a passkey on its screen (DisplayOnly)
    /// and pairs only with it (../shared/reference/infinitime.md: "a reader needs passkey entry");
    /// a chest strap has neither display nor keys (NoInputNoOutput: Just Works).
    var ioCapability: IOCapability {
        switch self {
        case .infinitime: .displayOnly
        case .heartRateStrap: .noInputNoOutput
        }
    }
}

extension HCIBandListener: PeerListener {}
