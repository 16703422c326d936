import CommandKit
import Foundation
import HealthModel
import HealthStore

/// `health add TYPE VALUE [UNIT]`: a manual entry (user-entered), like typing into the Health app.
struct AddCommand: Command {
    static let configuration = CommandConfiguration(
        name: "add", abstract: "Add a manual entry (marked user-entered).",
        discussion: "Example: health add body-mass 72.5 kg; health add step-count 1200 --start 2026-11-30T08:00:00+01:00 --end 2026-11-30T09:00:00+01:00",
        options: [
            .argument("TYPE", help: "Sample type (step-count, heart-rate, body-mass, … or a HealthKit name)."),
            .argument("VALUE", help: "The amount (or, for stand-hour, stood/idle)."),
            .argument("UNIT", optional: true, help: "Unit of VALUE (default: the type's canonical unit)."),
            .option("start", value: "T", help: "Start time (default: now)."),
            .option("end", value: "T", help: "End time (default: the start)."),
            .option("source", value: "ID", help: "Record as coming from this source instead of 'health'."),
            .option("device", value: "NAME", help: "Name of the device that measured it."),
            .option("tz", value: "ZONE", help: "Zone for times without offset (default: local)."),
            storeOption, personOption,
        ])

    enum Entry {
        case quantity(QuantitySample)
        case category(CategorySample)
    }

    var entry: Entry
    var source: AppIdentity
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        let type = try arguments.sampleType(arguments.required("TYPE"))
        let zone = try arguments.timeZone()
        let start = try arguments.instant("start", zone: zone) ?? Date()
        let end = try arguments.instant("end", zone: zone) ?? start
        guard end >= start else { throw arguments.usageError("--end is before --start") }
        if let problem = PlausibleRange.problem(start: start, end: end, maximumDuration: type.maximumDuration) {
            throw arguments.usageError("the \(type) sample \(problem)")
        }
        for option in ["source", "device"] {
            if let name = arguments.value(option), let problem = NameBound.problem(name) { throw arguments.usageError("--\(option) \(problem)") }
        }
        let device = arguments.value("device").map { DeviceInfo(name: $0) }
        let text = arguments.required("VALUE")
        switch type {
        case .quantity(let quantityType):
            guard let value = Double(text), value.isFinite else {
                throw arguments.usageError("VALUE '\(text)' is not a number")
            }
            var unit = quantityType.canonicalUnit
            if let symbol = arguments.argument("UNIT") {
                do { unit = try HealthUnit(parsing: symbol) } catch { throw arguments.usageError(error.description) }
                guard unit.isCompatible(with: quantityType.canonicalUnit) else {
                    throw arguments.usageError("\(UnitError.incompatible(from: unit, to: quantityType.canonicalUnit)): \(quantityType) is measured in \(quantityType.canonicalUnit.dimension) units such as \(quantityType.canonicalUnit)")
                }
            }
            let canonical = (try? Quantity(value, unit).value(in: quantityType.canonicalUnit)) ?? .nan
            if let problem = quantityType.plausibleRange.problem(value: canonical, unit: quantityType.canonicalUnit) {
                throw arguments.usageError("VALUE \(text)\(unit == quantityType.canonicalUnit ? "" : " \(unit)"): \(quantityType) \(problem)")
            }
            entry = .quantity(QuantitySample(type: quantityType, quantity: Quantity(value, unit), start: start, end: end,
                                             timeZone: zone, device: device, userEntered: true))
        case .category(let categoryType):
            guard let index = categoryType.valueNames.firstIndex(of: text) ?? Int(text).flatMap({
                categoryType.valueNames.indices.contains($0) ? $0 : nil
            }) else {
                throw arguments.usageError("VALUE '\(text)' is not a \(categoryType) value (\(categoryType.valueNames.joined(separator: ", ")))")
            }
            if arguments.argument("UNIT") != nil { throw arguments.usageError("\(categoryType) values have no unit") }
            entry = .category(CategorySample(type: categoryType, value: index, start: start, end: end, timeZone: zone,
                                             device: device, userEntered: true))
        case .workout:
            throw arguments.usageError("workouts are not added with 'health add'")
        }
        source = arguments.value("source").map { AppIdentity(id: $0, version: "") } ?? .owner
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath)
        let id: UUID
        switch entry {
        case .quantity(let sample):
            try store.write(as: .owner) { try $0.save(sample, attributedTo: source) }
            id = sample.id
        case .category(let sample):
            try store.write(as: .owner) { try $0.save(sample, attributedTo: source) }
            id = sample.id
        }
        StandardOutput.shared.line("added \(id.uuidString.lowercased())")
        return .success
    }
}
