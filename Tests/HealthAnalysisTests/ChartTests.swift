import FoundationEssentials
import Testing
@testable import HealthAnalysis

@Suite("Charts: local-time axis, SVG text, terminal columns")
struct ChartTests {
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    func day(_ start: TimeInterval, hours: Double) -> Range<Date> {
        Date(timeIntervalSince1970: start)..<Date(timeIntervalSince1970: start + hours * 3600)
    }

    @Test("A 25-hour day has 25 hour ticks with 02 twice; a 23-hour day 23 without 02")
    func dstTicks() {
        // 2026-10-25 00:00 +02:00 = 2026-10-24T22:00:00Z; 2026-03-29 00:00 +01:00 = 2026-03-28T23:00:00Z.
        let autumn = ChartAxis.ticks(for: day(1_792_879_200, hours: 25), zone: berlin, multiDay: false)
        #expect(autumn.count == 25)
        #expect(autumn.map(\.label).filter { $0 == "02" }.count == 2)
        #expect(autumn.map(\.label).prefix(4) == ["00", "01", "02", "02"])
        let spring = ChartAxis.ticks(for: day(1_774_738_800, hours: 23), zone: berlin, multiDay: false)
        #expect(spring.count == 23)
        #expect(!spring.map(\.label).contains("02"))
        #expect(spring.map(\.label).prefix(3) == ["00", "01", "03"])
    }

    @Test("Week ticks at local midnights, named by weekday")
    func weekTicks() {
        // Monday 2026-11-30 00:00 +01:00.
        let ticks = ChartAxis.ticks(for: day(1_796_079_600 - 86_400, hours: 7 * 24), zone: berlin, multiDay: true)
        #expect(ticks.map(\.label) == ["Mon 30", "Tue 1", "Wed 2", "Thu 3", "Fri 4", "Sat 5", "Sun 6"])
    }

    @Test("Text in SVG is escaped, control characters replaced; numbers have two decimals at most")
    func svgText() {
        #expect(SVGChart.escaped("a<b>&\"c'\u{1B}[2J") == "a&lt;b&gt;&amp;&quot;c&apos;\u{FFFD}[2J")
        #expect(SVGChart.n(12.345) == "12.35")
        #expect(SVGChart.n(-0.001) == "0")
        #expect(SVGChart.n(-0.5) == "-0.5")
        #expect(SVGChart.n(1e300) == "1e+300")  // no trap
        #expect(!SVGChart.n(3.05).contains("e"))
        #expect(SVGChart.n(.nan) == "0")
        let data = ChartData(title: "<script>alert(1)</script>", range: day(1_796_079_600, hours: 24), zone: berlin,
                             heartRate: [], steps: [], sleep: [], workouts: [.init(start: Date(timeIntervalSince1970: 1_796_090_000),
                                                                                    end: Date(timeIntervalSince1970: 1_796_093_600), activity: "a\"b")])
        let svg = SVGChart.render(data)
        #expect(!svg.contains("<script>"))
        #expect(svg.contains("data-activity=\"a&quot;b\""))
    }

    @Test("Terminal columns: a quarter hour each; gaps stay blank; the total is the sum of the buckets")
    func terminal() {
        let start = Date(timeIntervalSince1970: 1_796_079_600)
        let range = start..<start.addingTimeInterval(86_400)
        let steps = (0..<24).map { ChartData.Total(start: start.addingTimeInterval(Double($0) * 3600), end: start.addingTimeInterval(Double($0 + 1) * 3600), value: $0 == 8 ? 400 : 0) }
        let heart = [ChartData.HeartRate(start: start.addingTimeInterval(3600), end: start.addingTimeInterval(3660), average: 60, minimum: 55, maximum: 70)]
        let lines = TerminalChart.render(ChartData(title: "t", range: range, zone: berlin, heartRate: heart, steps: steps, sleep: [], workouts: []))
        #expect(lines[2].count == 96)
        #expect(Array(lines[2])[4] != " " && Array(lines[2]).enumerated().allSatisfy { $0.offset == 4 || $0.element == " " })
        #expect(lines[3].hasPrefix("steps       400"))
        #expect(Array(lines[4])[32...35].allSatisfy { $0 == "█" })
        #expect(lines[1].contains("55–70 /min"))
    }
}
