import CommandKit
import Foundation
import HealthModel
import HealthStore
import JSONOutput

/// `health bmi [--save]`: body-mass index from the latest height and body mass.
struct BMICommand: Command {
    static let configuration = CommandConfiguration(
        name: "bmi", abstract: "Body-mass index (kg/m²) from the latest height and body mass.",
        options: [.flag("save", help: "Save the result as a body-mass-index sample (manual entry, now)."),
                  .flag("json", help: "Print JSON."), storeOption, personOption])

    var save: Bool
    var json: Bool
    var storePath: StoreChoice

    init(arguments: ParsedArguments) throws(UsageError) {
        save = arguments.flag("save")
        json = arguments.flag("json")
        storePath = arguments.storePath
    }

    func run() throws -> ExitCode {
        let store = try openStore(storePath, readOnly: !save)
        guard let height = try store.mostRecentSample(of: .height, as: .owner) else {
            throw RuntimeFailure("health bmi: no height recorded (health add height 1.80 m)")
        }
        guard let mass = try store.mostRecentSample(of: .bodyMass, as: .owner) else {
            throw RuntimeFailure("health bmi: no body mass recorded (health add body-mass 72 kg)")
        }
        let meters = try finite(height.quantity.value(in: .meter), "health bmi: the latest height")
        let kilograms = try finite(mass.quantity.value(in: .kilogram), "health bmi: the latest body mass")
        guard meters > 0 else { throw DataError("health bmi: the latest height is \(formatValue(meters)) m") }
        let bmi = kilograms / (meters * meters)
        if let problem = QuantityType.bodyMassIndex.plausibleRange.problem(value: bmi, unit: .count) {
            throw DataError("health bmi: body mass \(formatValue(kilograms)) kg and height \(formatValue(meters)) m give a BMI that \(problem); correct them with 'health add'")
        }
        if save {
            let now = Date()
            try store.write(as: .owner) {
                try $0.save(QuantitySample(type: .bodyMassIndex, quantity: Quantity(bmi, .count), start: now, end: now,
                                           timeZone: .current, userEntered: true))
            }
        }
        if json {
            StandardOutput.shared.line(JSON.text { json in
                json.beginObject()
                json.key("bmi"); json.value(bmi)
                json.key("height_m"); json.value(meters)
                json.key("body_mass_kg"); json.value(kilograms)
                json.endObject()
            })
        } else {
            StandardOutput.shared.line("BMI \(String(format: "%.1f", bmi)) kg/m² (body mass \(formatValue(kilograms)) kg, "
                  + "height \(formatValue(meters)) m)\(save ? "; saved" : "")")
        }
        return .success
    }
}
