// swift-tools-version:6.0
// BandKit: a BLE smart band's firmware, its reader, and a HealthKit-like store, on Linux.
//
// Folders are rooms, and layers flow one way between them (docs/architecture.md):
//   Sources/Core        the band's wire: bytes, ATT, GATT, the band's protocol, the GATT server, the
//                       firmware's crypto and UART frames. Embedded-Swift-clean (scripts/check-embedded.sh
//                       compiles every module in this folder for a Cortex-M4).
//   Sources/System      below both halves: the system layer (one Errno, EINTR retry, files, locks,
//                       randomness), the one JSON writer, and a service's pieces (sd_notify, control
//                       socket, metrics, log lines).
//   Sources/Host        links (BlueZ, sockets), HCI, the GATT client, link security, the reader session.
//   Sources/Trace       captures: decoding (btsnoop, pcapng, air) and replay.
//   Sources/Simulation  simulated peers (InfiniTime, a heart-rate strap) and the QEMU firmware bridge.
//   Sources/Health      the store (SQLite; PostgreSQL opt-in), its analysis, its file formats, its dashboard, HealthKit's API.
//   Sources/Commands    the executables, thin over the libraries.
//   Sources/C           C libraries from Debian packages (only the link, the store, the file formats,
//                       the dashboard touch C; OpenSSL is only the tests' crypto oracle).
//   firmware-sim        the band's firmware: Embedded/ (the chip's core and board layer), Linux/ (its
//                       Linux process shell), board/ (the mps2-an386 image).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BandKit",
    // No `platforms:` claim: BandKit builds and is tested on Linux only (Debian 12, Swift 6.3; the
    // link layer is BlueZ, the system layer Glibc). OpenHealthKitShim is Apple's HealthKit on Apple
    // platforms by `canImport`, without this package's other products.
    products: [
        // Libraries, one per room (a room may offer more than one).
        .library(name: "BandCore", targets: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandProtocol",
                                             "FirmwareCrypto", "UARTFraming", "CivilTime", "BandHCI", "BandLEHost"]),
        .library(name: "BandHost", targets: ["BandLink", "BandBlueZ", "BandGATTClient", "SocketSecurity",
                                             "BandReader", "BandGateway"]),
        .library(name: "BandTrace", targets: ["BandTrace"]),
        .library(name: "BandReplay", targets: ["BandReplay"]),
        .library(name: "BandFirmware", targets: ["BandFirmwareCore", "ChipRuntime", "BandFirmware"]),
        .library(name: "BandSimulation", targets: ["BandPeers", "FirmwareBridge"]),
        .library(name: "HealthStore", targets: ["HealthModel", "HealthStore"]),
        // PostgreSQL for the store, opt-in: the only product that links libpq.
        .library(name: "HealthStorePostgreSQL", targets: ["HealthStorePostgreSQL"]),
        .library(name: "HealthAnalysis", targets: ["HealthAnalysis"]),
        .library(name: "HealthFormats", targets: ["AppleHealth", "FitFile"]),
        .library(name: "HealthDashboard", targets: ["HealthHTTP"]),
        // HealthKit's API over the store (OpenHealthKit), and the shim that is Apple's HealthKit
        // where it exists and OpenHealthKit elsewhere.
        .library(name: "OpenHealthKit", targets: ["OpenHealthKit"]),
        .library(name: "OpenHealthKitShim", targets: ["OpenHealthKitShim"]),
        // The three commands, and the radio probe.
        .executable(name: "bandsim", targets: ["bandsim"]),
        .executable(name: "band", targets: ["band"]),
        .executable(name: "health", targets: ["health"]),
        .executable(name: "bandradio", targets: ["bandradio"]),
    ],
    targets: [
        // MARK: Sources/C — C libraries from Debian packages.
        .systemLibrary(name: "CBlueZ", path: "Sources/C/CBlueZ", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/C/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/C/CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CExpat", path: "Sources/C/CExpat", providers: [.apt(["libexpat1-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/C/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CPostgres", path: "Sources/C/CPostgres", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/C/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),

        // MARK: Sources/Core — the band's wire, Embedded-Swift-clean.
        .target(name: "BandWire", path: "Sources/Core/BandWire", swiftSettings: strict),
        // The one civil calendar (days from civil and back), below both the Band and the Health modules.
        .target(name: "CivilTime", path: "Sources/Core/CivilTime", swiftSettings: strict),
        .target(name: "BandATT", dependencies: ["BandWire"], path: "Sources/Core/BandATT", swiftSettings: strict),
        .target(name: "BandGATT", dependencies: ["BandWire", "BandATT", "CivilTime"], path: "Sources/Core/BandGATT", swiftSettings: strict),
        // The one ATT server, generic over an attribute source (the firmware's static table, a
        // replay's reconstructed one).
        .target(name: "BandGATTServer", dependencies: ["BandWire", "BandATT"], path: "Sources/Core/BandGATTServer",
                swiftSettings: strict),
        // SHA-256, HMAC-SHA256 and HMAC_DRBG in Swift, no heap, no C: the band's pairing and
        // challenge, the same code on the chip and on the host.
        .target(name: "FirmwareCrypto", path: "Sources/Core/FirmwareCrypto", swiftSettings: strict),
        .target(name: "BandProtocol", dependencies: ["BandWire", "BandATT", "FirmwareCrypto"], path: "Sources/Core/BandProtocol",
                swiftSettings: strict),
        // The UART frame between the firmware on the MCU and the host bridge: one codec for both
        // sides (docs/protocol.md "UART framing").
        .target(name: "UARTFraming", path: "Sources/Core/UARTFraming", swiftSettings: strict),
        // HCI packets and events: one model for traces (BandTrace), the controller socket (BandBlueZ)
        // and the band's own Bluetooth host (BandLEHost), so Embedded-clean.
        .target(name: "BandHCI", dependencies: ["BandWire"], path: "Sources/Core/BandHCI", swiftSettings: strict),
        // The band's own BLE peripheral host, sans I/O: H4 framing, controller bring-up, GAP
        // advertising, L2CAP LE fixed channels and SMP under the unchanged GATT server.
        .target(name: "BandLEHost", dependencies: ["BandWire", "BandHCI", "BandATT", "BandGATTServer", "FirmwareCrypto"],
                path: "Sources/Core/BandLEHost", swiftSettings: strict),

        // MARK: Sources/System — below both halves: both make system calls, need unpredictable bytes
        // and write JSON, and neither may import the other.
        // The system layer, below everything that makes system calls: one Errno, one EINTR retry
        // (valueOrErrno), the mockable raw-call table, atomic file writes, locks, and the one secure
        // random source (getrandom(2)).
        .target(name: "BandKitSystem", path: "Sources/System/BandKitSystem", swiftSettings: strict),
        // The one JSON writer, below the commands, the store and the simulated peers.
        .target(name: "JSONOutput", path: "Sources/System/JSONOutput", swiftSettings: strict),
        // The pieces of an always-on service, none of them about bands: sd_notify spoken directly,
        // the Unix control socket, Prometheus metrics on a small poll-driven HTTP server, log lines
        // journald understands. Driven by the owner's one poll loop.
        .target(name: "ServiceSupport", dependencies: ["BandKitSystem", "JSONOutput"], path: "Sources/System/ServiceSupport",
                swiftSettings: strict),

        // MARK: Sources/Host — links carrying ATT PDUs, HCI, the GATT client, the reader.
        .target(name: "BandLink", dependencies: ["BandKitSystem"], path: "Sources/Host/BandLink", swiftSettings: strict),
        .target(name: "BandBlueZ", dependencies: ["CBlueZ", "BandWire", "BandHCI", "BandLink", "BandKitSystem"], path: "Sources/Host/BandBlueZ",
                swiftSettings: strict),
        .target(name: "BandGATTClient", dependencies: ["BandWire", "BandATT", "BandGATT", "BandLink"],
                path: "Sources/Host/BandGATTClient", swiftSettings: strict),
        // The band's own host (BandLEHost) on a standard controller's tty or TCP socket, from Linux.
        .target(name: "BandControllerLink",
                dependencies: ["BandATT", "BandHCI", "BandKitSystem", "BandLEHost", "BandLink", "BandWire", "ServiceSupport"],
                path: "Sources/Host/BandControllerLink", swiftSettings: strict),
        // Legacy pairing's SMP messages and encryption with a bond on the simulator's socket link.
        .target(name: "SocketSecurity", dependencies: ["BandWire", "BandLink", "FirmwareCrypto", "BandKitSystem"],
                path: "Sources/Host/SocketSecurity", swiftSettings: strict),
        // The reader: band sessions, minute aggregation, history sync, keys.
        .target(name: "BandReader",
                dependencies: ["BandWire", "BandGATT", "BandProtocol", "BandLink", "BandGATTClient",
                               "HealthModel", "HealthStore", "HealthAnalysis", "BandKitSystem"],
                path: "Sources/Host/BandReader", swiftSettings: strict),
        // `band gateway`: every paired device kept synced from one loop (the machine deciding,
        // a thread per device's session), its status and counters.
        .target(name: "BandGateway",
                dependencies: ["BandReader", "BandLink", "BandKitSystem", "HealthModel", "JSONOutput", "ServiceSupport"],
                path: "Sources/Host/BandGateway", swiftSettings: strict),

        // MARK: Sources/Trace — btsnoop, pcapng and air captures: decoding, and replay.
        .target(name: "BandTrace", dependencies: ["BandWire", "BandATT", "BandGATT", "BandHCI", "BandLink", "BandKitSystem"],
                path: "Sources/Trace/BandTrace",
                swiftSettings: strict),
        // Replay of recorded traces: into the store through the reader's code, or served to a live reader.
        .target(name: "BandReplay",
                dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandProtocol", "BandTrace",
                               "BandLink", "BandGATTClient", "BandReader", "HealthModel", "HealthStore", "BandKitSystem"],
                path: "Sources/Trace/BandReplay", swiftSettings: strict),

        // MARK: firmware-sim — the band's firmware.
        // The chip's runtime, below the band's logic: the Board interface (what the firmware asks of a
        // chip: UART, clock, flash), the main loop that turns UART frames into ATT answers and link
        // messages (FirmwareRuntime), the boot record and the flash layout.
        .target(name: "ChipRuntime", dependencies: ["BandWire", "BandATT", "BandGATTServer", "FirmwareCrypto", "UARTFraming", "BandHCI", "BandLEHost"],
                path: "firmware-sim/Sources/Embedded/ChipRuntime", swiftSettings: strict),
        // The band's own logic, one source tree for Linux and the chip: sensor model, clock, minute
        // accumulation, flash image, the one-second tick, and the band's GATT services generic over a host.
        .target(name: "BandFirmwareCore",
                dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandProtocol", "ChipRuntime",
                               "FirmwareCrypto", "UARTFraming", "CivilTime", "BandLEHost"],
                path: "firmware-sim/Sources/Embedded/BandFirmwareCore", swiftSettings: strict),
        // The firmware as a Linux process: the core's GATT services on an ATT bearer, run loop, state file.
        .target(name: "BandFirmware",
                dependencies: ["BandWire", "BandATT", "BandGATT", "BandProtocol", "BandLink", "BandTrace",
                               "BandFirmwareCore", "JSONOutput", "BandKitSystem", "ServiceSupport"],
                path: "firmware-sim/Sources/Linux/BandFirmware", swiftSettings: strict),

        // MARK: Sources/Simulation — peers other than the band, and the bridge to the firmware in QEMU.
        // An InfiniTime watch and a standard heart-rate strap, on the one GATT server.
        .target(name: "BandPeers", dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandLink", "SocketSecurity", "CivilTime", "JSONOutput"],
                path: "Sources/Simulation/BandPeers", swiftSettings: strict),
        // The host side of `bandsim serve --firmware`: reader ATT PDUs ↔ UART frames, no I/O.
        .target(name: "FirmwareBridge", dependencies: ["UARTFraming"], path: "Sources/Simulation/FirmwareBridge",
                swiftSettings: strict),

        // MARK: Sources/Health — the store and what reads and writes it.
        .target(name: "HealthModel", dependencies: ["BandKitSystem", "CivilTime"], path: "Sources/Health/HealthModel", swiftSettings: strict),
        .target(name: "HealthStore", dependencies: ["CSQLite", "HealthModel", "JSONOutput", "BandKitSystem"], path: "Sources/Health/HealthStore", swiftSettings: strict),
        // The store's PostgreSQL engine (libpq), opt-in: a program links it and calls
        // HealthStore.enablePostgreSQL() to open postgresql:// stores; others link no libpq.
        .target(name: "HealthStorePostgreSQL", dependencies: ["HealthStore", "CPostgres", "BandKitSystem"],
                path: "Sources/Health/HealthStorePostgreSQL", swiftSettings: strict),
        // Pure analysis of stored minutes (sleep scoring): no I/O, no store, Foundation only.
        .target(name: "HealthAnalysis", path: "Sources/Health/HealthAnalysis", swiftSettings: strict),
        // Apple Health's export.zip / export.xml: streaming XML (expat), zip members (zlib), the writer.
        .target(name: "AppleHealth", dependencies: ["CExpat", "CZlib", "HealthModel", "CivilTime", "BandKitSystem"], path: "Sources/Health/AppleHealth",
                swiftSettings: strict),
        // FIT files (Garmin's activity and monitoring format): decoder, writer. Pure Swift, no I/O.
        .target(name: "FitFile", dependencies: ["BandWire"], path: "Sources/Health/FitFile", swiftSettings: strict),
        // The dashboard's HTTP server: libmicrohttpd behind a small GET-only API.
        .target(name: "HealthHTTP", dependencies: ["CMicroHTTPD", "BandKitSystem"], path: "Sources/Health/HealthHTTP", swiftSettings: strict),
        // HealthKit's Swift API over the store (its types stay internal: `internal import`), and the shim.
        .target(name: "OpenHealthKit", dependencies: ["HealthModel", "HealthStore"], path: "Sources/Health/OpenHealthKit",
                swiftSettings: strict),
        .target(name: "OpenHealthKitShim", dependencies: ["OpenHealthKit"], path: "Sources/Health/OpenHealthKitShim",
                swiftSettings: strict),

        // MARK: Sources/Commands — the command-line framework and the executables.
        .target(name: "CommandKit", dependencies: ["JSONOutput", "BandKitSystem"], path: "Sources/Commands/CommandKit", swiftSettings: strict),
        .executableTarget(
            name: "bandsim",
            dependencies: ["CommandKit", "BandWire", "BandATT", "BandGATT", "BandProtocol", "BandTrace",
                           "BandLink", "BandBlueZ", "BandFirmware", "BandPeers", "BandReader", "BandReplay", "HealthStore",
                           "HealthStorePostgreSQL", "FirmwareBridge", "UARTFraming", "BandKitSystem", "SocketSecurity",
                           "BandControllerLink", "BandLEHost"],
            path: "Sources/Commands/bandsim", swiftSettings: strict),
        .executableTarget(
            name: "band",
            dependencies: ["CommandKit", "BandGATT", "BandProtocol", "BandLink", "BandBlueZ", "BandReader", "BandGateway", "ServiceSupport", "HealthStore", "HealthStorePostgreSQL",
                           "HealthModel", "SocketSecurity", "BandKitSystem", "JSONOutput", "BandTrace"],
            path: "Sources/Commands/band", swiftSettings: strict,
            // The Swift runtime and FoundationEssentials linked in (docs/architecture.md, "Foundation
            // and linking"). The modules are compiled against the shared toolchain's module files, whose
            // link entries leave out the two archives the static FoundationEssentials needs. An
            // executable's flag: no package that depends on BandKit builds this target.
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux])),
                             .linkedLibrary("_FoundationCollections", .when(platforms: [.linux])),
                             .linkedLibrary("_FoundationCShims", .when(platforms: [.linux]))]),
        // Radio probe over BlueZ (scan, advertise, ATT on L2CAP, pairing): Tests/radio and docs/real-hardware.md.
        .executableTarget(name: "bandradio", dependencies: ["CommandKit", "BandWire", "BandLink", "BandBlueZ"],
                          path: "Sources/Commands/bandradio", swiftSettings: strict),
        .executableTarget(
            name: "health",
            dependencies: ["CommandKit", "HealthModel", "HealthStore", "HealthStorePostgreSQL", "HealthAnalysis", "AppleHealth", "HealthHTTP",
                           "FitFile", "JSONOutput", "BandKitSystem"],
            path: "Sources/Commands/health", swiftSettings: strict),

        // MARK: Tests — one test target per library target; shared helpers in support targets.
        // One seeded generator for every test target; depends on nothing BandKit.
        .target(name: "SeededRandom", path: "Tests/SeededRandom"),
        .target(name: "BandTestSupport", dependencies: ["BandWire", "BandLink", "BandKitSystem"], path: "Tests/BandTestSupport"),
        // OpenSSL's SHA-256 and HMAC: the oracle FirmwareCrypto's own code is checked against.
        .target(name: "CryptoOracle", dependencies: ["CCrypto"], path: "Tests/CryptoOracle"),
        .target(name: "HealthTestSupport", dependencies: ["HealthModel", "HealthStore", "HealthStorePostgreSQL", "FitFile"], path: "Tests/HealthTestSupport"),
        .testTarget(name: "BandWireTests", dependencies: ["BandWire", "BandTestSupport"]),
        .testTarget(name: "BandATTTests", dependencies: ["BandWire", "BandATT", "BandTestSupport"]),
        .testTarget(name: "BandGATTTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandTestSupport"]),
        .testTarget(name: "BandHCITests", dependencies: ["BandWire", "BandHCI", "BandTestSupport"]),
        .testTarget(name: "BandControllerLinkTests", dependencies: ["BandControllerLink", "BandLEHost", "BandWire"]),
        .testTarget(name: "BandLEHostTests", dependencies: ["BandLEHost", "BandHCI", "BandWire", "BandATT", "BandGATTServer", "FirmwareCrypto",
                                                             "BandBlueZ", "BandProtocol", "BandTestSupport"]),
        .testTarget(name: "BandGATTServerTests", dependencies: ["BandWire", "BandATT", "BandGATTServer", "BandTestSupport"]),
        .testTarget(name: "BandProtocolTests", dependencies: ["BandWire", "BandProtocol", "CryptoOracle", "BandTestSupport"]),
        .testTarget(name: "FirmwareCryptoTests", dependencies: ["FirmwareCrypto", "CryptoOracle", "SeededRandom"]),
        .testTarget(name: "UARTFramingTests", dependencies: ["UARTFraming"]),
        .testTarget(name: "BandKitSystemTests", dependencies: ["BandKitSystem"]),
        .testTarget(name: "BandLinkTests", dependencies: ["BandLink", "BandTestSupport"]),
        .testTarget(name: "BandBlueZTests", dependencies: ["BandWire", "BandHCI", "BandLink", "BandBlueZ", "BandTestSupport", "BandKitSystem"]),
        .testTarget(name: "BandGATTClientTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandLink", "BandGATTClient", "BandTestSupport"]),
        .testTarget(name: "SocketSecurityTests", dependencies: ["SocketSecurity", "BandWire", "BandLink", "BandTestSupport"]),
        // CSQLite: the power-loss VFS (Support/PowerLossVFS.swift) the durability test runs the store on.
        .testTarget(name: "BandGatewayTests", dependencies: ["BandGateway", "BandReader", "BandTestSupport", "SeededRandom"]),
        .testTarget(name: "BandReaderTests",
                    dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTClient", "BandProtocol", "BandReader", "BandFirmware",
                                   "BandPeers", "BandLink", "HealthStore", "HealthModel", "HealthAnalysis", "BandTestSupport", "CSQLite", "BandKitSystem", "SeededRandom"]),
        .testTarget(name: "BandTraceTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandHCI", "BandLink", "BandTrace", "BandTestSupport", "BandKitSystem"]),
        .testTarget(name: "BandReplayTests",
                    dependencies: ["BandReplay", "BandGATTServer", "BandTrace", "BandLink", "BandATT", "HealthStore", "BandTestSupport",
                                   "BandWire", "BandGATT", "BandProtocol", "BandReader", "BandFirmware", "HealthModel", "SeededRandom"]),
        .testTarget(name: "ChipRuntimeTests",
                    dependencies: ["ChipRuntime", "FirmwareCrypto", "UARTFraming", "BandFirmware", "BandFirmwareCore", "BandProtocol",
                                   "BandLink", "BandWire", "BandATT", "BandLEHost"],
                    path: "firmware-sim/Tests/ChipRuntimeTests"),
        .testTarget(name: "BandFirmwareCoreTests", dependencies: ["BandFirmwareCore", "BandProtocol"],
                    path: "firmware-sim/Tests/BandFirmwareCoreTests"),
        .testTarget(name: "BandFirmwareTests", dependencies: ["BandWire", "BandProtocol", "BandLink", "BandFirmware", "BandTestSupport", "BandGATT"],
                    path: "firmware-sim/Tests/BandFirmwareTests"),
        .testTarget(name: "BandPeersTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandPeers"]),
        .testTarget(name: "FirmwareBridgeTests", dependencies: ["FirmwareBridge", "UARTFraming"]),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel", "HealthTestSupport"]),
        .testTarget(name: "HealthStoreTests", dependencies: ["HealthModel", "HealthStore", "HealthTestSupport"]),
        .testTarget(name: "HealthStorePostgreSQLTests",
                    dependencies: ["CPostgres", "HealthModel", "HealthStore", "HealthStorePostgreSQL", "HealthTestSupport"]),
        .testTarget(name: "HealthAnalysisTests", dependencies: ["HealthAnalysis", "SeededRandom"]),
        .testTarget(name: "HealthHTTPTests", dependencies: ["HealthHTTP"]),
        .testTarget(name: "AppleHealthTests", dependencies: ["AppleHealth", "HealthModel"]),
        .testTarget(name: "FitFileTests", dependencies: ["FitFile", "BandWire", "HealthTestSupport"]),
        .testTarget(name: "OpenHealthKitTests", dependencies: ["OpenHealthKit", "HealthModel", "HealthStore", "HealthTestSupport"]),
        // The tutorials' calls run against a store `band sync` filled.
        .testTarget(name: "HealthKitCompatibilityTests", dependencies: ["OpenHealthKitShim"]),
        .testTarget(name: "CommandKitTests", dependencies: ["CommandKit", "JSONOutput"]),
        .testTarget(name: "CivilTimeTests", dependencies: ["CivilTime"]),
        .testTarget(name: "JSONOutputTests", dependencies: ["JSONOutput", "HealthModel"]),
        .testTarget(name: "ServiceSupportTests", dependencies: ["ServiceSupport"]),
        // The `health` command run as a process (the built binary beside the test bundle).
        .testTarget(name: "HealthCommandTests", dependencies: ["HealthModel", "HealthStore", "HealthTestSupport", "FitFile", "JSONOutput", "SeededRandom"]),
        .testTarget(name: "EndToEndTests"),
    ],
    swiftLanguageModes: [.v6]
)
