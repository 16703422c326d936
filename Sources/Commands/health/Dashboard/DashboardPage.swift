import Foundation
import HealthAnalysis
import HealthModel
import HealthStore

/// The dashboard's HTML: one page per view, numbers rendered on the server (so the page is
/// complete without script), a chart image, and a small script (served from `/dashboard.js`,
/// inside the binary) that reloads the figures when the change feed says something changed.
enum DashboardPage {
    /// `grants`: the `health grant` commands for the types the dashboard may not read (shown above
    /// the figures, so "not allowed" never stands without what to do about it).
    static func html(_ summary: DashboardSummary, zone: TimeZone, anchor: Int64, grants: [String] = []) -> String {
        let view = summary.view.rawValue
        var rows: [(String, String, String, String?)] = []  // id, label, text, exact value (data-value)
        func figure(_ id: String, _ label: String, _ value: DashboardSummary.Figure, _ format: (Double) -> String) {
            switch value {
            case .notAllowed: rows.append((id, label, "not allowed", nil))
            case .value(nil): rows.append((id, label, "—", "null"))
            case .value(let number?): rows.append((id, label, format(number), jsonNumber(number)))
            }
        }
        func whole(_ value: Double) -> String { formatValue(value.rounded()) }
        figure("steps", "Steps", summary.steps, whole)
        figure("distance", "Distance (km)", summary.distance) { formatValue(($0 / 10).rounded() / 100) }
        figure("energy", "Active energy (kcal)", summary.energy, whole)
        figure("hr-avg", "Heart rate average (/min)", summary.heartAverage, whole)
        figure("hr-min", "Heart rate minimum (/min)", summary.heartMinimum, whole)
        figure("hr-max", "Heart rate maximum (/min)", summary.heartMaximum, whole)
        if summary.sleepAllowed {
            rows.append(("asleep", summary.view == .day ? "Asleep last night" : "Asleep (nights ending in the \(view))",
                         NightReport.duration(summary.asleep), jsonNumber(summary.asleep)))
            rows.append(("in-bed", "In bed", NightReport.duration(summary.inBed), jsonNumber(summary.inBed)))
            rows.append(("awakenings", "Awakenings", String(summary.awakenings), String(summary.awakenings)))
        } else {
            rows.append(("asleep", "Asleep", "not allowed", nil))
        }
        if summary.workoutsAllowed {
            let duration = summary.workouts.reduce(0) { $0 + $1.duration }
            rows.append(("workouts", "Workouts", "\(summary.workouts.count) (\(NightReport.duration(duration)))", String(summary.workouts.count)))
        } else {
            rows.append(("workouts", "Workouts", "not allowed", nil))
        }
        let table = rows.map { id, label, text, exact in
            "<tr><th>\(escape(label))</th><td id=\"\(id)\"\(exact.map { " data-value=\"\($0)\"" } ?? " class=\"not-allowed\"")>\(escape(text))</td></tr>"
        }.joined(separator: "\n")
        let workoutList = summary.workouts.map { stat in
            "<li>\(escape(TimeParsing.format(stat.workout.start, in: zone))) \(escape(stat.workout.activity.rawValue)) \(escape(NightReport.duration(stat.duration)))"
                + (stat.averageHeartRate.map { ", HR \(whole($0)) avg" } ?? "") + "</li>"
        }.joined(separator: "\n")
        let chartQuery = "view=\(view)&amp;date=\(escape(summary.date))"
        let grantHint = grants.isEmpty ? "" : """
            <section id="grant-hint"><p>Rows marked “not allowed” are types the dashboard may not read: it reads as the app \
            \(DashboardSummary.app.id), which sees only what you grant it. To show them, run:</p>
            <pre>\(grants.map(escape).joined(separator: "\n"))</pre></section>

            """
        let nav = ["day", "week", "month"].map { "<a href=\"/\($0)?date=\(escape(summary.date))\">\($0)</a>" }.joined(separator: " · ")
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>BandKit \(view) \(escape(summary.date))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="stylesheet" href="/dashboard.css"></head>
            <body data-anchor="\(anchor)" data-view="\(view)" data-date="\(escape(summary.date))">
            <header><h1>\(view.capitalized) of \(escape(summary.date))</h1><nav>\(nav)</nav>
            <p class="zone">\(escape(zone.identifier)) · read as bandkit.dashboard · <span id="live">live</span></p></header>
            \(grantHint)<main id="summary">
            <table>
            \(table)
            </table>
            <ul id="workout-list">
            \(workoutList)
            </ul>
            <img id="chart" alt="chart of the \(view)" src="/chart.svg?\(chartQuery)&amp;anchor=\(anchor)" width="1200" height="580">
            </main>
            <script src="/dashboard.js"></script>
            </body></html>
            """
    }

    static let css = """
        body { font-family: sans-serif; margin: 1.5em; color: #222; }
        table { border-collapse: collapse; margin: 1em 0; }
        th { text-align: left; font-weight: normal; padding: 0.2em 1.5em 0.2em 0; color: #555; }
        td { font-weight: bold; font-variant-numeric: tabular-nums; }
        img { max-width: 100%; height: auto; border: 1px solid #ddd; }
        .zone { color: #777; }
        #live.updated { color: #1e8449; }
        """

    /// Subscribes to `/events`; on a change, fetches the page again and swaps the summary in.
    static let script = """
        (function () {
          var live = document.getElementById('live');
          var source = new EventSource('/events?after=' + document.body.dataset.anchor);
          source.addEventListener('change', function (event) {
            fetch(location.pathname + location.search, {cache: 'no-store'})
              .then(function (response) { return response.text(); })
              .then(function (text) {
                var page = new DOMParser().parseFromString(text, 'text/html');
                document.getElementById('summary').replaceWith(page.getElementById('summary'));
                document.body.dataset.anchor = event.data;
                live.textContent = 'updated at anchor ' + event.data;
                live.className = 'updated';
              });
          });
        })();
        """

    /// HTML text and attribute escaping.
    static func escape(_ text: String) -> String { SVGChart.escaped(text) }
}
