// swift-tools-version:6.0
// A program that uses BandKit the way another package would: by URL and version, public API only.
// Tests/checks/downstream.sh copies this package, points the URL at a tagged clone of the
// checkout, builds it and runs it (a path dependency would not do: SwiftPM waives the rule against
// `unsafeFlags` for those, and it would not prove the products are usable as released).
import PackageDescription

let package = Package(
    name: "BandKitDownstream",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "file:///BANDKIT_CLONE/BandKit", from: "0.9.0"),
    ],
    targets: [
        .executableTarget(
            name: "bandkit-downstream",
            dependencies: [
                .product(name: "BandCore", package: "BandKit"),
                .product(name: "BandTrace", package: "BandKit"),
                .product(name: "BandHost", package: "BandKit"),
                .product(name: "HealthStore", package: "BandKit"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
