import Foundation
import Testing

/// Two readers paired with one band (a phone and a laptop), as processes: each `band` keeps its
/// own keystore (its own reader ID and key); the band keeps a history position per reader, so
/// neither reader's acknowledgement erases minutes the other has not fetched.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct TwoReadersCommandTests {
    struct Reader {
        let name: String
        let keystore: String
        let store: String
        var outputs: [String] = []

        init(_ name: String, in world: DemoWorld, store: String? = nil) {
            self.name = name
            keystore = world.directory + "/\(name)-keys.json"
            self.store = store ?? world.directory + "/\(name).sqlite"
        }

        mutating func sync(_ world: DemoWorld) throws {
            let sync = try world.band(["sync", world.address, "--keystore", keystore, "--store", store, "--keep-band-clock", "--json"])
            #expect(sync.status == 0, "\(name): \(sync.stderr)")
            #expect(!sync.stdout.contains(/"gap":[1-9]/), "\(name) was told of minutes that no longer exist: \(sync.stdout)")
            outputs.append(sync.stdout)
        }
    }

    /// Starts a band with a day of history and pairs both readers.
    func pairedWorld() throws -> (DemoWorld, Reader, Reader) {
        let world = try DemoWorld()
        try world.startBand(["--start", ReaderCommandTests.bandStart, "--speed", "600", "--history-days", "1", "--seed", "5"])
        let phone = Reader("phone", in: world)
        let laptop = Reader("laptop", in: world)
        for reader in [phone, laptop] {
            let pair = try world.band(["pair", world.address, "--keystore", reader.keystore])
            #expect(pair.status == 0, "\(reader.name): \(pair.stderr)")
        }
        return (world, phone, laptop)
    }

    @Test func twoReadersWithTheirOwnStoresEachStoreEveryMinuteOfTheBand() throws {
        var (world, phone, laptop) = try pairedWorld()
        // Interleaved, as a phone and a laptop would sync: each time the other has acknowledged more.
        try phone.sync(world)
        try laptop.sync(world)
        try phone.sync(world)
        try laptop.sync(world)
        world.stopBand()
        let truth = try world.truth()
        for reader in [phone, laptop] {
            let cursor = try #require(lastCursor(in: reader.outputs), "\(reader.name) committed nothing")
            #expect(cursor >= 1440, "\(reader.name): a day of history")
            let problems = compare(truth: truth, below: cursor, stored: try world.storedSamples(store: reader.store))
            #expect(problems == [], "\(reader.name): \(problems.joined(separator: "\n"))")
        }
    }

    @Test func twoReadersIntoOneStoreStoreEachMinuteOnce() throws {
        var (world, phone, laptop) = try pairedWorld()
        phone = Reader("phone", in: world, store: world.store)
        laptop = Reader("laptop", in: world, store: world.store)
        try phone.sync(world)
        try laptop.sync(world)
        try phone.sync(world)
        world.stopBand()
        let cursor = try #require(lastCursor(in: phone.outputs + laptop.outputs))
        #expect(cursor >= 1440)
        // compare() reports any sample stored twice: the sync identifiers (device|type|minute)
        // make the second reader's minutes the same samples.
        let problems = compare(truth: try world.truth(), below: cursor, stored: try world.storedSamples())
        #expect(problems == [], "\(problems.joined(separator: "\n"))")
    }
}
