// swift-tools-version:6.0
// BandKit: a BLE smart band's simulated firmware, its reader, and a HealthKit-like store, on Linux.
//
// Layers flow one way (see docs/architecture.md):
//   BandWire → BandATT → BandGATT / BandProtocol → BandTrace, BandGATTClient, BandFirmware
//   HealthModel → HealthStore;  BandReader joins the band side to the store.
// Only BandBlueZ (CBlueZ), HealthStore (CSQLite, CPostgres), AppleHealth (CExpat, CZlib) and HealthHTTP (CMicroHTTPD)
// link C libraries; OpenSSL (CCrypto) is only the tests' oracle (Tests/CryptoOracle).
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "BandKit",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "bandsim", targets: ["bandsim"]),
        .executable(name: "band", targets: ["band"]),
        .executable(name: "health", targets: ["health"]),
        // HealthKit's API over the store (OpenHealthKit), and the shim that is Apple's HealthKit
        // where it exists and OpenHealthKit elsewhere.
        .library(name: "OpenHealthKit", targets: ["OpenHealthKit"]),
        .library(name: "OpenHealthKitShim", targets: ["OpenHealthKitShim"]),
    ],
    targets: [
        // C libraries from Debian packages.
        .systemLibrary(name: "CBlueZ", path: "Sources/CBlueZ", providers: [.apt(["libbluetooth-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CCrypto", path: "Sources/CCrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CExpat", path: "Sources/CExpat", providers: [.apt(["libexpat1-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        // PostgreSQL's client library: the store's second engine (docs/deployment.md).
        .systemLibrary(name: "CPostgres", path: "Sources/CPostgres", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),

        // Wire layer: bytes, ATT, characteristics, the band's own protocol.
        .target(name: "BandWire", swiftSettings: strict),
        .target(name: "BandATT", dependencies: ["BandWire"], swiftSettings: strict),
        // HCI packets and events (headers, LE Connection Complete, advertising reports, commands):
        // one model for traces (BandTrace) and the controller socket (BandBlueZ).
        .target(name: "BandHCI", dependencies: ["BandWire"], swiftSettings: strict),
        .target(name: "BandGATT", dependencies: ["BandWire", "BandATT"], swiftSettings: strict),
        .target(name: "BandProtocol", dependencies: ["BandWire", "BandATT", "FirmwareCrypto"], swiftSettings: strict),
        // The one ATT server, generic over an attribute source (the firmware's static table, a
        // replay's reconstructed one). Embedded-Swift-clean: scripts/check-embedded.sh.
        .target(name: "BandGATTServer", dependencies: ["BandWire", "BandATT"], swiftSettings: strict),

        // Traces: btsnoop, HCI, L2CAP reassembly, ATT extraction and decoding.
        // Release builds skip the dynamic exclusivity checks of the trace pipeline's classes (one
        // per record and stage, 16 % of decoding; docs/performance.md). Its state is touched by one
        // thread and no callback runs during an access; debug builds, which the tests use, keep the checks.
        .target(name: "BandTrace", dependencies: ["BandWire", "BandATT", "BandGATT", "BandHCI", "BandLink", "BandKitSystem"],
                swiftSettings: strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]),

        // Links carrying ATT PDUs, and the GATT client on top of them.
        .target(name: "BandLink", dependencies: ["BandKitSystem"], swiftSettings: strict),
        .target(name: "BandBlueZ", dependencies: ["CBlueZ", "BandWire", "BandHCI", "BandLink", "BandKitSystem"], swiftSettings: strict),
        .target(name: "BandGATTClient", dependencies: ["BandWire", "BandATT", "BandGATT", "BandLink"], swiftSettings: strict),

        // The system layer, below everything that makes system calls: one Errno, one EINTR retry
        // (valueOrErrno), the mockable raw-call table, atomic file writes, locks, and the one secure
        // random source (getrandom(2)) that both the Band and the Health modules draw from.
        .target(name: "BandKitSystem", path: "Sources/System/BandKitSystem", swiftSettings: strict),

        // The health store.
        .target(name: "HealthModel", dependencies: ["BandKitSystem"], swiftSettings: strict),
        .target(name: "HealthStore", dependencies: ["CSQLite", "CPostgres", "HealthModel", "BandKitSystem"], swiftSettings: strict),
        // Pure analysis of stored minutes (sleep scoring): no I/O, no store, Foundation only.
        .target(name: "HealthAnalysis", swiftSettings: strict),
        // The dashboard's HTTP server: libmicrohttpd (CMicroHTTPD) behind a small GET-only API.
        .target(name: "HealthHTTP", dependencies: ["CMicroHTTPD", "BandKitSystem"], swiftSettings: strict),
        // FIT files (Garmin's activity and monitoring format): decoder, writer, activity and
        // monitoring content. Pure Swift, no I/O.
        .target(name: "FitFile", dependencies: ["BandWire"], swiftSettings: strict),
        // Apple Health's export.zip / export.xml: streaming XML (expat), zip members (zlib), the writer.
        .target(name: "AppleHealth", dependencies: ["CExpat", "CZlib", "HealthModel", "BandKitSystem"], swiftSettings: strict),

        // The reader: band sessions, minute aggregation, history sync, keys.
        .target(
            name: "BandReader",
            dependencies: ["BandWire", "BandGATT", "BandProtocol", "BandKitSystem", "BandLink",
                           "BandGATTClient", "BandTrace", "HealthModel", "HealthStore", "HealthAnalysis"],
            swiftSettings: strict),

        // Replay of recorded traces: into the store through the reader's code, or served to a live reader.
        .target(
            name: "BandReplay",
            dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandProtocol", "BandKitSystem", "BandTrace", "BandLink",
                           "BandGATTClient", "BandReader", "HealthModel", "HealthStore"],
            swiftSettings: strict),

        // The firmware's own crypto: SHA-256, HMAC-SHA256, HMAC_DRBG in Swift, no heap, no C
        // (Embedded-Swift-clean: scripts/check-embedded.sh); OpenSSL stays on the host.
        .target(name: "FirmwareCrypto", path: "firmware-sim/Sources/FirmwareCrypto", swiftSettings: strict),
        // The UART frame between the firmware on the MCU and the host bridge: one codec for both
        // sides (Embedded-Swift-clean; docs/protocol.md "UART framing").
        .target(name: "UARTFraming", path: "firmware-sim/Sources/UARTFraming", swiftSettings: strict),
        // The firmware's core for a microcontroller, generic over a Board (QEMU mps2-an386 in
        // firmware-sim/board/, a scripted board in the tests): UART frames, ATT through the shared
        // GATT server, link and debug messages. Embedded-Swift-clean.
        .target(name: "FirmwareBoard", dependencies: ["BandWire", "BandATT", "BandGATTServer", "FirmwareCrypto", "UARTFraming"],
                path: "firmware-sim/Sources/FirmwareBoard", swiftSettings: strict),
        // The host side of `bandsim serve --firmware`: reader ATT PDUs ↔ UART frames, no I/O.
        .target(name: "FirmwareBridge", dependencies: ["UARTFraming"], path: "firmware-sim/Sources/FirmwareBridge",
                swiftSettings: strict),

        // The band's own logic, one source tree for Linux and the chip (Embedded-Swift-clean:
        // scripts/check-embedded.sh): sensor model, clock, minute accumulation, flash image
        // (minute ring, key store), the one-second tick (BandCore), truth lines, and the band's
        // GATT services (BandServices: attribute table, activity/history/auth, Current Time,
        // notifications) generic over a host — Linux's bearer, the chip's UART (ChipBand).
        .target(name: "BandFirmwareCore", dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandProtocol", "FirmwareBoard", "FirmwareCrypto", "UARTFraming"],
                path: "firmware-sim/Sources/BandFirmwareCore", swiftSettings: strict),
        // The simulated band firmware: the Linux shell around BandFirmwareCore (its GATT services
        // hosted on an ATT bearer, run loop, state file), re-exporting the core.
        .target(
            name: "BandFirmware",
            dependencies: ["BandWire", "BandATT", "BandGATT", "BandProtocol", "BandKitSystem", "BandLink", "BandTrace",
                           "BandFirmwareCore"],
            path: "firmware-sim/Sources/BandFirmware",
            swiftSettings: strict),

        // Link security on the simulator's socket link: legacy pairing's SMP messages (passkey,
        // Just Works) and encryption with a bond, as the peer and the reader run them; no I/O but
        // the reader's driver over an ATT bearer and its bond file.
        .target(name: "SocketSecurity", dependencies: ["BandWire", "BandLink", "BandKitSystem", "FirmwareCrypto"], swiftSettings: strict),

        // Simulated third-party peers for `bandsim serve --profile`: an InfiniTime watch and a
        // standard heart-rate strap, on the one GATT server (not the band's firmware).
        .target(
            name: "BandPeers",
            dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandLink", "SocketSecurity"],
            path: "firmware-sim/Sources/BandPeers",
            swiftSettings: strict),

        // Command-line framework and the three commands.
        .target(name: "CommandKit", dependencies: ["BandKitSystem"], swiftSettings: strict),
        .executableTarget(
            name: "bandsim",
            dependencies: ["CommandKit", "BandWire", "BandATT", "BandGATT", "BandProtocol", "BandTrace",
                           "BandLink", "BandBlueZ", "BandFirmware", "BandPeers", "BandReader", "BandReplay", "HealthStore",
                           "FirmwareBridge", "UARTFraming", "BandKitSystem", "SocketSecurity"],
            path: "firmware-sim/Sources/bandsim",
            swiftSettings: strict),
        .executableTarget(
            name: "band",
            dependencies: ["CommandKit", "BandGATT", "BandProtocol", "BandLink", "BandBlueZ", "BandReader", "HealthStore", "HealthModel",
                           "SocketSecurity", "BandKitSystem"],
            swiftSettings: strict,
            // The Swift runtime and FoundationEssentials linked in (docs/architecture.md, "Foundation
            // and linking"). The modules are compiled against the shared toolchain's module files, whose
            // link entries leave out the two archives the static FoundationEssentials needs.
            linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux])),
                             .linkedLibrary("_FoundationCollections", .when(platforms: [.linux])),
                             .linkedLibrary("_FoundationCShims", .when(platforms: [.linux]))]),
        // Radio probe over BlueZ (scan, advertise, ATT on L2CAP, pairing): Tests/radio and docs/real-hardware.md.
        .executableTarget(
            name: "bandradio",
            dependencies: ["CommandKit", "BandWire", "BandLink", "BandBlueZ"],
            swiftSettings: strict),
        .executableTarget(
            name: "health",
            dependencies: ["CommandKit", "HealthModel", "HealthStore", "HealthAnalysis", "AppleHealth", "HealthHTTP", "FitFile", "BandKitSystem"],
            swiftSettings: strict),

        // Tests.
        .target(name: "BandTestSupport", dependencies: ["BandWire", "BandLink", "BandKitSystem"], path: "Tests/BandTestSupport"),
        // OpenSSL's SHA-256 and HMAC: the oracle FirmwareCrypto's own code is checked against.
        .target(name: "CryptoOracle", dependencies: ["CCrypto"], path: "Tests/CryptoOracle"),
        .target(name: "HealthTestSupport", dependencies: ["HealthModel", "HealthStore", "FitFile"], path: "Tests/HealthTestSupport"),
        .testTarget(name: "BandWireTests", dependencies: ["BandWire", "BandTestSupport"]),
        .testTarget(name: "BandATTTests", dependencies: ["BandWire", "BandATT", "BandTestSupport"]),
        .testTarget(name: "BandGATTTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandTestSupport"]),
        .testTarget(name: "BandHCITests", dependencies: ["BandWire", "BandHCI", "BandTestSupport"]),
        .testTarget(name: "BandGATTServerTests", dependencies: ["BandWire", "BandATT", "BandGATTServer", "BandTestSupport"]),
        .testTarget(name: "BandProtocolTests", dependencies: ["BandWire", "BandProtocol", "CryptoOracle", "BandTestSupport"]),
        .testTarget(name: "BandTraceTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandHCI", "BandLink", "BandTrace", "BandKitSystem", "BandTestSupport"]),
        .testTarget(name: "BandLinkTests", dependencies: ["BandLink", "BandTestSupport"]),
        .testTarget(name: "BandBlueZTests", dependencies: ["BandWire", "BandHCI", "BandLink", "BandBlueZ", "BandKitSystem", "BandTestSupport"]),
        .testTarget(name: "BandGATTClientTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandLink", "BandGATTClient", "BandTestSupport"]),
        .testTarget(name: "BandKitSystemTests", dependencies: ["BandKitSystem"]),
        .testTarget(name: "SocketSecurityTests", dependencies: ["SocketSecurity", "BandWire", "BandLink", "BandTestSupport"]),
        .testTarget(name: "HealthAnalysisTests", dependencies: ["HealthAnalysis", "BandFirmware", "BandProtocol"]),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel", "HealthTestSupport"]),
        .testTarget(name: "AppleHealthTests", dependencies: ["AppleHealth", "HealthModel"]),
        .testTarget(name: "FitFileTests", dependencies: ["FitFile", "BandWire", "HealthTestSupport"]),
        .testTarget(name: "HealthStoreTests", dependencies: ["CPostgres", "HealthModel", "HealthStore", "HealthTestSupport"]),
        // The `health` command run as a process (the built binary beside the test bundle).
        .testTarget(name: "HealthCommandTests", dependencies: ["HealthModel", "HealthStore", "HealthTestSupport", "FitFile"]),
        .testTarget(name: "BandPeersTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTServer", "BandPeers"],
                    path: "firmware-sim/Tests/BandPeersTests"),
        .testTarget(name: "BandFirmwareTests", dependencies: ["BandWire", "BandProtocol", "BandLink", "BandFirmware", "BandTestSupport"],
                    path: "firmware-sim/Tests/BandFirmwareTests"),
        .testTarget(name: "FirmwareCryptoTests", dependencies: ["FirmwareCrypto", "CryptoOracle"],
                    path: "firmware-sim/Tests/FirmwareCryptoTests"),
        .testTarget(name: "FirmwareBridgeTests", dependencies: ["FirmwareBridge", "UARTFraming"],
                    path: "firmware-sim/Tests/FirmwareBridgeTests"),
        .testTarget(name: "UARTFramingTests", dependencies: ["UARTFraming"], path: "firmware-sim/Tests/UARTFramingTests"),
        .testTarget(name: "FirmwareBoardTests", dependencies: ["FirmwareBoard", "FirmwareCrypto", "UARTFraming", "BandFirmware", "BandFirmwareCore", "BandProtocol", "BandLink", "BandWire", "BandATT"],
                    path: "firmware-sim/Tests/FirmwareBoardTests"),
        // CSQLite: the power-loss VFS (Support/PowerLossVFS.swift) the durability test runs the store on.
        .testTarget(name: "BandReaderTests", dependencies: ["BandWire", "BandATT", "BandGATT", "BandGATTClient", "BandProtocol", "BandReader", "BandFirmware", "BandPeers", "BandLink", "BandKitSystem", "HealthStore", "HealthModel", "HealthAnalysis", "BandTestSupport", "CSQLite"]),
        .testTarget(name: "BandReplayTests", dependencies: ["BandReplay", "BandGATTServer", "BandTrace", "BandLink", "BandATT", "HealthStore", "BandTestSupport",
                                                         "BandWire", "BandGATT", "BandProtocol", "BandReader", "BandFirmware", "HealthModel"]),
        .testTarget(name: "CommandKitTests", dependencies: ["CommandKit"]),
        .testTarget(name: "EndToEndTests"),

        // HealthKit's Swift API over the store (its types stay internal: `internal import`), the
        // shim, their unit tests, and the tutorials' calls run against a store `band sync` filled.
        .target(name: "OpenHealthKit", dependencies: ["HealthModel", "HealthStore"], swiftSettings: strict),
        .target(name: "OpenHealthKitShim", dependencies: ["OpenHealthKit"], swiftSettings: strict),
        .testTarget(name: "OpenHealthKitTests", dependencies: ["OpenHealthKit", "HealthModel", "HealthStore", "HealthTestSupport"]),
        .testTarget(name: "HealthKitCompatibilityTests", dependencies: ["OpenHealthKitShim"]),
    ],
    swiftLanguageModes: [.v6]
)
