import FoundationEssentials

extension ImportRecord {
    /// The fast path for an everyday line: its ``ImportSampleLine`` as a record. Nil whenever the
    /// line is anything but a valid quantity or category sample of the everyday shape: the
    /// general path then decides it, so every error and every result is the general path's own.
    /// What it does build equals the general path's record (its fuzz harness and differential
    /// tests compare them byte for byte).
    package init?(fastParsing line: UnsafeBufferPointer<UInt8>, context: Context) {
        guard let sample = ImportSampleLine(fastParsing: line, context: context) else { return nil }
        self.init(sample, context: context)
    }

    /// The record of a line read by the fast path.
    package init(_ sample: ImportSampleLine, context: Context) {
        let series = context.series(sample.series)
        let zone = sample.zone.map { context.zone($0).zone }
        source = series.source
        switch series.type {
        case .quantity(let quantityType):
            payload = .quantity(QuantitySample(id: sample.id, type: quantityType, quantity: Quantity(sample.value, series.unit!),
                                               start: sample.start, end: sample.end, timeZone: zone, device: series.device,
                                               syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                                               userEntered: sample.userEntered, metadata: sample.metadata))
        case .category(let categoryType):
            payload = .category(CategorySample(id: sample.id, type: categoryType, value: Int(sample.value), start: sample.start,
                                               end: sample.end, timeZone: zone, device: series.device,
                                               syncIdentifier: sample.syncIdentifier, syncVersion: sample.syncVersion,
                                               userEntered: sample.userEntered, metadata: sample.metadata))
        case .workout:
            preconditionFailure("an ImportSampleLine is never a workout")
        }
    }
}
