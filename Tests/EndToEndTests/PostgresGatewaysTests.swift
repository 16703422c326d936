import Foundation
import Testing

/// Many gateways, one PostgreSQL store (a server restart in the middle of a sync must lose
/// nothing): two simulated bands, each with its own `band` process,
/// write into one store while the server is restarted (`pg_ctl stop -m fast`, then start) in
/// the middle of one's history sync and the other's stream. Afterwards each band's minutes are
/// in the store exactly once with the band's values; a stale gateway replaying minutes it
/// spooled during the outage changes nothing (the version rule).
///
/// Runs only under Tests/checks/postgres-gateways.sh, which starts the throwaway cluster and
/// exports BANDKIT_TEST_POSTGRES_URL and POSTGRES_CLUSTER_DIR (for the restart).
/// The throwaway cluster's URL, when Tests/checks/postgres-gateways.sh started one.
let gatewayClusterURL: String? = {
    let environment = ProcessInfo.processInfo.environment
    guard let url = environment["BANDKIT_TEST_POSTGRES_URL"], !url.isEmpty, environment["POSTGRES_CLUSTER_DIR"] != nil else { return nil }
    return url
}()

@Suite(.serialized, .enabled(if: Commands.available && gatewayClusterURL != nil,
                             "needs the tools built and a throwaway cluster (Tests/checks/postgres-gateways.sh)"))
struct PostgresGatewaysTests {
    static var clusterURL: String? { gatewayClusterURL }

    /// One band and its gateway: own keystore and spool directory, the shared store.
    struct Gateway {
        let world: DemoWorld
        let environment: [String: String]
        var spoolDirectory: String { world.directory + "/state/bandkit/spool" }

        init(seed: Int, historyDays: Int, store: String) throws {
            world = try DemoWorld()
            environment = world.environment.merging(["BANDKIT_STORE": store, "XDG_STATE_HOME": world.directory + "/state"]) { $1 }
            try world.startBand(["--start", ReaderCommandTests.bandStart, "--speed", "600", "--history-days", "\(historyDays)", "--seed", "\(seed)"])
            let pair = try RunningCommand.run("band", ["pair", world.address], environment: environment)
            #expect(pair.status == 0, "pair: \(pair.stderr)")
        }

        func start(_ arguments: [String]) throws -> RunningCommand {
            try RunningCommand("band", arguments, environment: environment)
        }

        func run(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
            try RunningCommand.run("band", arguments, environment: environment, timeout: .seconds(180))
        }
    }

    func restartServer() throws {
        let root = Commands.packageRoot.path
        // Down for 8 s (stop -m fast, then start): long enough that the stream's writes, every
        // 5 s, meet the outage rather than reconnecting transparently at their next transaction.
        // system(3), not Foundation's Process: its waitUntilExit never returned for this child.
        let status = system("bash -c \"source '\(root)/Tests/support/postgres-cluster.sh' && postgres_cluster_restart 8\"")
        #expect(status == 0, "the cluster restarted (status \(status))")
    }

    /// Runs `command` (postgres-cluster.sh's functions) in a shell of its own.
    func cluster(_ command: String) -> Int32 {
        let root = Commands.packageRoot.path
        return system("bash -c \"source '\(root)/Tests/support/postgres-cluster.sh' && \(command)\"")
    }

    /// `band sync` gives up after its store retries (here shortened through BANDKIT_STORE_RETRY,
    /// as docs/deployment.md documents for tests): exit 1 with the give-up message, and nothing it
    /// could not commit was acknowledged: the band still holds that history, which the next sync,
    /// with the server back, stores in full (the store equals the band's truth, every minute once).
    @Test func aSyncGivesUpAfterItsStoreRetriesAndTheBandKeepsItsHistory() throws {
        let base = try #require(Self.clusterURL)
        // A schema of its own: the other test counts the bands in the default one.
        let schema = "give_up_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        #expect(cluster("$POSTGRES_CLUSTER_BIN/psql -X -q '\(base)' -c 'CREATE SCHEMA \(schema)'") == 0)
        let url = base + "&options=-csearch_path%3D" + schema
        let gateway = try Gateway(seed: 17, historyDays: 6, store: url)
        let environment = gateway.environment.merging(["BANDKIT_STORE_RETRY": "200,400,3"]) { $1 }
        let sync = try RunningCommand("band", ["sync", gateway.world.address, "--keep-band-clock", "--json"], environment: environment)
        #expect(sync.waitForOutput("\"event\":\"history_committed\"", timeout: .seconds(90)), "the first slice: \(sync.stderr)")
        #expect(cluster("postgres_cluster_down") == 0, "the server stopped")
        let status = sync.wait(timeout: .seconds(120))
        #expect(cluster("postgres_cluster_launch") == 0, "the server started again")
        #expect(status == 1, "\(sync.stderr)")
        #expect(sync.stdout.contains("\"event\":\"store_unavailable\""), "\(sync.stdout.suffix(2000))")
        #expect(sync.stderr.contains("health store: unavailable after 3 retries, giving up"), "\(sync.stderr)")
        #expect(sync.stderr.contains("the band keeps that history: run 'band sync' again when the store is back"))
        let firstCursor = try #require(lastCursor(in: [sync.stdout]))
        #expect(firstCursor < 6 * 1440, "the server stopped in the middle of the sync (cursor \(firstCursor))")

        // The server is back: the next sync finds on the band everything the first did not commit.
        let again = try RunningCommand.run("band", ["sync", gateway.world.address, "--keep-band-clock", "--json"],
                                           environment: environment, timeout: .seconds(180))
        #expect(again.status == 0, "\(again.stderr)")
        let cursor = try #require(lastCursor(in: [sync.stdout, again.stdout]))
        #expect(cursor >= 6 * 1440, "cursor \(cursor)")
        gateway.world.stopBand()
        let problems = compare(truth: try gateway.world.truth(), below: cursor, stored: try gateway.world.storedSamples(store: url))
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func twoGatewaysThroughAServerRestartStoreEveryMinuteOnce() throws {
        let url = try #require(Self.clusterURL)
        // A: a day of history, then streaming. B: six days of history, synced in 1440-minute slices.
        let a = try Gateway(seed: 5, historyDays: 1, store: url)
        let b = try Gateway(seed: 9, historyDays: 6, store: url)   // 6 days fit the band's flash ring (7 overflow it: a gap)
        let stream = try a.start(["stream", a.world.address, "--for", "45s", "--sync-every", "15s", "--keep-band-clock", "--json"])
        #expect(stream.waitForOutput("\"event\":\"streaming\"", timeout: .seconds(90)), "A streams: \(stream.stderr)")
        let sync = try b.start(["sync", b.world.address, "--keep-band-clock", "--json"])
        #expect(sync.waitForOutput("\"event\":\"history_committed\"", timeout: .seconds(90)), "B commits its first slice: \(sync.stderr)")

        // The server restarts in the middle of B's sync and A's stream.
        try restartServer()

        // A spools while the server is away; a copy of its spool is the stale gateway's, later.
        var staleSpool: (name: String, bytes: Data)?
        if stream.waitForOutput("\"event\":\"store_unavailable\"", timeout: .seconds(60)) {
            let deadline = ContinuousClock.now.advanced(by: .seconds(30))
            while staleSpool == nil, ContinuousClock.now < deadline {
                if let name = try? FileManager.default.contentsOfDirectory(atPath: a.spoolDirectory).first(where: { $0.hasSuffix(".spool") }),
                   let bytes = FileManager.default.contents(atPath: a.spoolDirectory + "/" + name), bytes.count > 8 {
                    staleSpool = (name, bytes)
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        #expect(sync.wait(timeout: .seconds(240)) == 0, "B's sync carries on after the restart: \(sync.stderr)")
        #expect(stream.wait(timeout: .seconds(240)) == 0, "A's stream carries on after the restart: \(stream.stderr)")
        #expect(stream.stdout.contains("\"event\":\"store_unavailable\""), "A saw the outage: \(stream.stdout.suffix(2000))")
        #expect(stream.stdout.contains("\"event\":\"store_available\""), "A saw the server come back")
        #expect(sync.stdout.contains("\"event\":\"store_unavailable\""), "the restart came in the middle of B's sync: \(sync.stdout.suffix(2000))")

        // Two band minutes later the minute the stream ended in is recorded; a last sync each.
        Thread.sleep(forTimeInterval: 0.5)
        var outputs: [String: [String]] = [:]
        for (name, gateway) in [("A", a), ("B", b)] {
            let last = try gateway.run(["sync", gateway.world.address, "--keep-band-clock", "--json"])
            #expect(last.status == 0, "\(name): final sync: \(last.stderr)")
            outputs[name] = [last.stdout]
        }
        outputs["A"]! += [stream.stdout]
        outputs["B"]! += [sync.stdout]

        // The stale gateway: A's spool from the outage, replayed after everything is synced.
        let stale = try #require(staleSpool, "A's spool held minutes during the outage")
        try FileManager.default.createDirectory(atPath: a.spoolDirectory, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: a.spoolDirectory + "/" + stale.name, contents: stale.bytes,
                                               attributes: [.posixPermissions: 0o600]))
        let replay = try a.run(["sync", a.world.address, "--keep-band-clock", "--json"])
        #expect(replay.status == 0, "stale replay: \(replay.stderr)")
        #expect(replay.stdout.contains("\"event\":\"store_available\""), "the stale spool was replayed: \(replay.stdout.prefix(2000))")

        for (name, gateway) in [("A", a), ("B", b)] {
            gateway.world.stopBand()
            let truth = try gateway.world.truth()
            let cursor = try #require(lastCursor(in: outputs[name]!), "\(name) committed nothing")
            let all = try gateway.world.storedSamples(store: url)
            let serials = Set(all.compactMap(\.syncIdentifier).map { String($0.split(separator: "|")[0]) })
            #expect(serials.count == 2, "two bands in one store: \(serials)")
            // This band's device: the one whose samples match its first truth minute's steps.
            func problems(_ device: String) -> [String] {
                compare(truth: truth, below: cursor, stored: all.filter { $0.syncIdentifier?.hasPrefix(device + "|") ?? false })
            }
            let report = serials.map { "\($0): " + problems($0).prefix(5).joined(separator: "; ") }.joined(separator: " | ")
            guard let mine = serials.first(where: { problems($0).isEmpty }) else {
                Issue.record("\(name): no device in the store equals the band's truth (cursor \(cursor)): \(report)")
                continue
            }
            #expect(cursor >= (name == "B" ? 6 * 1440 : 1440), "\(name): cursor \(cursor) (device \(mine))")
        }
    }
}
