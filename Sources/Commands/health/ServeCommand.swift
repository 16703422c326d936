import CommandKit
import Foundation
import HealthAnalysis
import HealthHTTP
import HealthModel
import HealthStore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `health serve`: the local dashboard (docs/architecture.md, "The dashboard").
struct ServeCommand: Command {
    static let configuration = CommandConfiguration(
        name: "serve", abstract: "A local read-only dashboard over HTTP (day, week, month; live updates).",
        discussion: """
            Serves on 127.0.0.1 (--port, default 8080; 0 picks a free port). Another address only with --listen ADDR,
            with a warning: the dashboard has no login. It answers only requests whose Host is 127.0.0.1, localhost or
            [::1] (or the --listen address) with its port: 421 otherwise, so a web page cannot rebind its own name to it. Reads as the app bandkit.dashboard: grant it read access per
            type ('health grant bandkit.dashboard step-count --read'); a type it may not read shows "not allowed", and the
            page and the start line list the grants still missing.
            Pages: /day?date=YYYY-MM-DD, /week?date=…, /month?date=… (default today in --tz), /chart.svg?view=day|week|
            month|night&date=… (a night: noon to noon),
            /events (server-sent events from the change feed), /health (200 "ok"). Prints the URL on standard output
            when listening; SIGINT or SIGTERM stops it (exit 0).
            """,
        options: [
            .option("port", value: "N", help: "TCP port (default 8080; 0: any free port)."),
            .option("listen", value: "ADDR", help: "Listen on this IPv4 address instead of 127.0.0.1 (warns)."),
            .option("tz", value: "ZONE", help: "Time zone of days (default: local)."),
            storeOption, personOption,
        ])

    var port: UInt16
    var host: String
    var zone: TimeZone
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        port = try arguments.value("port", as: "a port number 0…65535") { UInt16($0) } ?? 8080
        host = arguments.value("listen") ?? "127.0.0.1"
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else {
            throw arguments.usageError("--listen '\(host)' is not an IPv4 address (e.g. 127.0.0.1)")
        }
        zone = try arguments.timeZone()
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        if !host.hasPrefix("127.") {
            CommandRunner.printError("health serve: warning: listening on \(host), not loopback: anyone who can reach it reads your health data (no login)")
        }
        let store = try openStore(storePath, readOnly: true)
        let stopping = Atomic<Bool>(false)
        let broadcast = ChangeBroadcast(store: store) { CommandRunner.printError("health serve: \($0)") }
        let router = DashboardRouter(store: store, broadcast: broadcast, zone: zone, person: storePath.person,
                                     stopping: { stopping.load(ordering: .relaxed) })
        // Block the stop signals in every thread (the server's inherit the mask), then wait for one.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let server: HTTPServer
        do { server = try HTTPServer(host: host, port: port) { router.respond(to: $0) } } catch {
            throw RuntimeFailure("health serve: \(error)")
        }
        StandardOutput.shared.line("health serve: http://\(host):\(server.port)/ (read as \(DashboardSummary.app.id); libmicrohttpd \(HTTPServer.libraryVersion); Ctrl-C stops)")
        let missing = try DashboardGrants.missing(store)
        if !missing.isEmpty {
            StandardOutput.shared.line("health serve: the dashboard may not read \(missing.map(\.identifier).joined(separator: ", ")) yet; to show them, run:")
            for command in DashboardGrants.commands(missing, person: storePath.person) { StandardOutput.shared.line("  " + command) }
        }
        try? StandardOutput.shared.flush()
        var received: Int32 = 0
        sigwait(&signals, &received)
        stopping.store(true, ordering: .relaxed)
        server.stop()
        broadcast.stop()
        return .success
    }
}

/// Paths → responses. Everything served is generated or compiled in; nothing is read from disk,
/// so no path can reach a file.
struct DashboardRouter: Sendable {
    let store: HealthStore
    let broadcast: ChangeBroadcast
    let zone: TimeZone
    /// `--person`, for the `health grant` commands the page suggests.
    let person: String?
    let stopping: @Sendable () -> Bool

    func respond(to request: HTTPRequest) -> HTTPResponse {
        do {
            switch request.path {
            case "/", "/day": return try page(.day, request)
            case "/week": return try page(.week, request)
            case "/month": return try page(.month, request)
            case "/chart.svg": return try chart(request)
            case "/events":
                let given = request.arguments["after"].flatMap { Int64($0) }.map(Anchor.init(rawValue:))
                let after = try given ?? store.currentAnchor()
                return HTTPResponse(stream: DashboardEvents(broadcast: broadcast, after: after, stopping: stopping), contentType: "text/event-stream")
            case "/dashboard.js": return HTTPResponse(status: 200, contentType: "text/javascript; charset=utf-8", text: DashboardPage.script)
            case "/dashboard.css": return HTTPResponse(status: 200, contentType: "text/css; charset=utf-8", text: DashboardPage.css)
            case "/health": return HTTPResponse(status: 200, contentType: "text/plain; charset=utf-8", text: "ok\n")
            default: return .error(404, "not found")
            }
        } catch let error as BadRequest {
            return .error(400, error.message)
        } catch {
            // The details name the deployment (a socket path, a database user): the log gets them.
            CommandRunner.printError("health serve: \(request.path): the store could not be read: \(error)")
            return .error(500, "the store could not be read (the server's log says why)")
        }
    }

    struct BadRequest: Error { var message: String }

    func date(_ request: HTTPRequest) -> String {
        if let date = request.arguments["date"] { return date }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: Date())
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    func range(_ view: DashboardSummary.View, _ date: String) throws -> Range<Date> {
        guard date.utf8.count <= 10, let range = DashboardSummary.range(view: view, date: date, zone: zone) else {
            throw BadRequest(message: "date '\(date.prefix(40))' is not a date (YYYY-MM-DD)")
        }
        return range
    }

    func page(_ view: DashboardSummary.View, _ request: HTTPRequest) throws -> HTTPResponse {
        let date = date(request)
        let range = try range(view, date)
        let anchor = try store.currentAnchor()
        let summary = try DashboardSummary(store: store, view: view, date: date, range: range, zone: zone)
        return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8",
                            text: DashboardPage.html(summary, zone: zone, anchor: anchor.rawValue,
                                                     grants: DashboardGrants.commands(try DashboardGrants.missing(store), person: person)),
                            headers: [("Content-Security-Policy", "default-src 'self'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'")])
    }

    /// `/chart.svg?view=day|week|month|night&date=…`; a night is noon to noon (``SleepNight``).
    func chart(_ request: HTTPRequest) throws -> HTTPResponse {
        let name = request.arguments["view"] ?? "day"
        let date = date(request)
        let range: Range<Date>
        if name == "night" {
            guard date.utf8.count <= 10, let window = SleepNight.window(named: date, in: zone) else {
                throw BadRequest(message: "date '\(date.prefix(40))' is not a date (YYYY-MM-DD)")
            }
            range = window
        } else {
            guard let view = DashboardSummary.View(rawValue: name) else { throw BadRequest(message: "view must be day, week, month or night") }
            range = try self.range(view, date)
        }
        let data = try ChartLoading.load(store: store, title: "\(name) of \(date) (\(zone.identifier))", range: range,
                                         zone: zone, as: DashboardSummary.app)
        return HTTPResponse(status: 200, contentType: "image/svg+xml", text: SVGChart.render(data))
    }
}
