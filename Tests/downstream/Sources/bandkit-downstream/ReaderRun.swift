import BandLink
import BandReader
import Foundation
import HealthModel
import HealthStore

/// A reader session against a simulated band (`bandsim serve --socket SOCKET`) through
/// ``BandReaderService``: pair, sync the band's history into the store, then read the store
/// back. Prints
///
///     paired READER-ID
///     synced N minutes
///     stored M step-count minutes
///     range FROM TO
///     steps SUM
enum ReaderRun {
    static func sync(socket: String, store storePath: String, keystore keystorePath: String) throws {
        let address = try BandAddress(parsing: "sim:\(socket)")
        let service = BandReaderService(
            address: address, keystore: Keystore(path: keystorePath), storePath: storePath, stop: StopRequest(),
            openLink: { address in
                guard case .simulator(let path) = address else { throw DownstreamFailure("\(address) is not a simulated band") }
                return try SeqPacketLink.connect(path: path)
            },
            report: { event in
                if case .anomaly(let what) = event { printError("band: \(what)") }
            })
        // The simulated band's clock runs faster than this host's: read it, do not set it.
        service.setsClock = false
        // A sync has no live minutes to spool; keep the reader out of the user's data directory.
        service.spoolDirectory = nil
        guard let band = try service.pair() else { throw DownstreamFailure("pairing was stopped") }
        print("paired \(String(band.readerID, radix: 16))")
        let outcome = try service.sync(attempts: 3)
        print("synced \(outcome.historyMinutes) minutes")

        let store = try HealthStore(path: storePath, readOnly: true)
        let steps = try store.samples(HealthQuery(type: .stepCount), as: .owner).compactMap { sample -> QuantitySample? in
            if case .quantity(let quantity) = sample { quantity } else { nil }
        }
        print("stored \(steps.count) step-count minutes")
        guard let from = steps.map(\.start).min(), let to = steps.map(\.end).max() else { return }
        let total = try store.statistics(type: .stepCount, range: from..<to, options: .sum, as: .owner)
        print("range \(from.formatted(.iso8601)) \(to.formatted(.iso8601))")
        print("steps \(total.first?.values.value(for: .sum).map { String(Int($0)) } ?? "-")")
    }
}

struct DownstreamFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
