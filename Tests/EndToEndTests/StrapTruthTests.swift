import Foundation
import Testing

/// The `hr-strap` profile's `--truth` against the store: what the strap measured is what the
/// store holds. A strap has no clock: the reader files readings by the host's minute, so the simulator
/// runs in real time (`--speed 1`, its clock started at the host's now) and the test streams for
/// a little over two minutes, comparing the minutes it was connected for from start to end.
///
/// Tolerances, and why: the simulator's clock starts at the host's whole second, so its minutes
/// begin up to 1 s before the host's, and a reading is filed when it arrives. So a host minute can
/// hold one measurement of the neighbouring simulator minute: heart rate ±1 bpm (a 60th of the
/// difference between neighbouring minutes, rounded), and Energy Expended, reported every 10th
/// measurement, can move one report (at most a sixth of a minute's kJ, plus one for the whole-kJ
/// steps) into the neighbouring minute; over the compared minutes together the same bound holds
/// once at each end.
@Suite(.serialized, .enabled(if: Commands.available, "needs bandsim, band and health built (swift build)"))
struct StrapTruthTests {
    static let kilojoulesPerKilocalorie = 4.184

    @Test func everyWholeMinuteStreamedFromAStrapIsStoredAsTheStrapMeasuredIt() throws {
        let world = try DemoWorld()
        try world.startPeer("hr-strap", ["--seed", "7", "--speed", "1"])
        let began = Date()
        let stream = try world.band(["stream", world.address, "--for", "135s", "--store", world.store], timeout: .seconds(200))
        let ended = Date()
        world.stopBand()
        #expect(stream.status == 0, "\(stream.stderr)")
        let truth = try strapTruth(world.truthPath)
        let stored = try world.storedSamples()
        // Minutes wholly inside the connection: begun 3 s after launching band (connect and
        // discovery take well under that), ended 1 s before it returned.
        let first = (began.timeIntervalSince1970 + 3).rounded(.up)
        let minutes = truth.keys.sorted().filter { start in
            guard let date = ISO8601DateFormatter().date(from: start) else { return false }
            return date.timeIntervalSince1970 >= first && date.timeIntervalSince1970 + 60 <= ended.timeIntervalSince1970 - 1
        }
        #expect(minutes.count >= 1, "a 135 s stream holds a whole minute: \(truth.keys.sorted())")
        var truthEnergy = 0.0, storedEnergy = 0.0, slack = 0.0
        for minute in minutes {
            let expected = try #require(truth[minute])
            let rates = stored.filter { $0.type == "heart-rate" && $0.start == minute }.map(\.value)
            if let rate = expected.heartRate {
                #expect(rates.count == 1, "one heart-rate sample for \(minute): \(rates)")
                if let got = rates.first { #expect(abs(got - rate) <= 1, "\(minute): stored \(got) bpm, the strap measured \(rate)") }
            } else {
                #expect(rates.isEmpty, "no contact in \(minute), nothing stored")
            }
            let energy = stored.filter { $0.type == "active-energy-burned" && $0.start == minute }.map(\.value).reduce(0, +) * Self.kilojoulesPerKilocalorie
            let bound = expected.energyKilojoules / 6 + 1
            #expect(abs(energy - expected.energyKilojoules) <= bound + 0.01,
                    "\(minute): stored \(energy) kJ, the strap counted \(expected.energyKilojoules) (±\(bound))")
            truthEnergy += expected.energyKilojoules
            storedEnergy += energy
            slack = max(slack, bound)
        }
        #expect(abs(storedEnergy - truthEnergy) <= 2 * slack + 0.01, "over \(minutes.count) minutes: stored \(storedEnergy) kJ, counted \(truthEnergy)")
    }

    struct Minute { var heartRate: Double?; var energyKilojoules: Double }

    func strapTruth(_ path: String) throws -> [String: Minute] {
        var out: [String: Minute] = [:]
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  object["profile"] as? String == "hr-strap", let minute = object["minute"] as? String,
                  let energy = (object["energy_kj"] as? NSNumber)?.doubleValue else { throw WorldError("bad truth line: \(line)") }
            out[minute] = Minute(heartRate: (object["heart_rate"] as? NSNumber)?.doubleValue, energyKilojoules: energy)
        }
        return out
    }
}
