// swift-tools-version:6.0
// A command-line workout tracker written against HealthKit's API: on Linux it runs on BandKit's
// store through OpenHealthKitShim; on Apple platforms the same code would use HealthKit.
import PackageDescription

let package = Package(
    name: "WorkoutTracker",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "BandKit", path: "../..")],
    targets: [
        .executableTarget(name: "workout-tracker", dependencies: [.product(name: "OpenHealthKitShim", package: "BandKit")]),
    ],
    swiftLanguageModes: [.v6]
)
