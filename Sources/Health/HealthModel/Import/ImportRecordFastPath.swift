import FoundationEssentials

extension ImportRecord {
    /// The fast path for an everyday line: an ``ImportLineScan`` of its bytes resolved through
    /// byte-keyed caches, with times and numbers read in place. Nil whenever the line is
    /// anything but a valid quantity or category sample of the everyday shape (a workout, an
    /// error, an unusual spelling): the general path then decides it, so every error and every
    /// result is the general path's own. What it does build equals the general path's record
    /// (its fuzz harness and differential tests compare them byte for byte).
    package init?(fastParsing line: UnsafeBufferPointer<UInt8>, context: Context) {
        guard let scan = ImportLineScan(line) else { return nil }
        func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: line[range]) }
        func text(_ range: Range<Int>) -> String { String(decoding: bytes(range), as: UTF8.self) }
        func text(_ part: UnsafeBufferPointer<UInt8>) -> String { String(decoding: part, as: UTF8.self) }

        guard let typeRange = scan.type,
              let (type, maximumDuration, plausibleRange) = context.typesByBytes.value(bytes(typeRange), resolve: { name, _ in
                  (try? SampleType(named: text(name))).map { ($0, $0.maximumDuration, $0.quantityType?.plausibleRange) }
              })
        else { return nil }
        if case .workout = type { return nil }

        var zone: TimeZone?
        if let range = scan.zone {
            guard let found = context.zonesByBytes.value(bytes(range), resolve: { name, _ in TimeZone(identifier: text(name)) })
            else { return nil }
            zone = found
        }
        func instant(_ range: Range<Int>) -> Date? {
            var hasOffset = false
            guard let date = TimeParsing.instant(bytes(range), zone: zone ?? ImportRecord.utc, hasOffset: &hasOffset),
                  zone != nil || hasOffset else { return nil }
            return date
        }
        guard let startRange = scan.start, let start = instant(startRange) else { return nil }
        var end = start
        if let range = scan.end {
            guard let date = instant(range) else { return nil }
            end = date
        }
        guard end >= start, start >= PlausibleRange.earliest, start < PlausibleRange.latest,
              PlausibleRange.problem(start: start, end: end, maximumDuration: maximumDuration) == nil else { return nil }

        guard let sourceRange = scan.source, !sourceRange.isEmpty else { return nil }
        let versionBytes = scan.sourceVersion.map(bytes) ?? UnsafeBufferPointer(start: nil, count: 0)
        guard let source = context.sourcesByBytes.value(bytes(sourceRange), versionBytes, resolve: { id, version in
            let app = AppIdentity(id: text(id), version: text(version))
            return NameBound.problem(app.id) == nil && NameBound.problem(app.version) == nil ? app : nil
        }) else { return nil }
        self.source = source

        var device: DeviceInfo?
        if let range = scan.device {
            guard let found = context.devicesByBytes.value(bytes(range), resolve: { name, _ in
                let name = text(name)
                return NameBound.problem(name) == nil ? DeviceInfo(name: name) : nil
            }) else { return nil }
            device = found
        }

        let syncID = scan.syncID.map(text)
        var syncVersion: Int64 = 0
        if let number = scan.syncVersion {
            guard number == number.rounded(), abs(number) < 9e15 else { return nil }
            syncVersion = Int64(number)
        }
        let userEntered = scan.userEntered ?? false
        var metadata: [String: String] = [:]
        for (name, value) in scan.metadata { metadata[text(name)] = text(value) }

        var id = UUID.timeOrdered()
        if let range = scan.id {
            guard let parsed = UUID(uuidString: text(range)) else { return nil }
            id = parsed
        }

        switch type {
        case .quantity(let quantityType):
            guard let value = scan.valueNumber, value.isFinite else { return nil }
            var unit = quantityType.canonicalUnit
            if let range = scan.unit {
                guard let found = context.unitsByBytes.value(bytes(range), resolve: { symbol, _ in try? HealthUnit(parsing: text(symbol)) }),
                      found.isCompatible(with: quantityType.canonicalUnit) else { return nil }
                unit = found
            }
            guard let canonical = try? Quantity(value, unit).value(in: quantityType.canonicalUnit),
                  plausibleRange?.problem(value: canonical, unit: quantityType.canonicalUnit) == nil else { return nil }
            payload = .quantity(QuantitySample(id: id, type: quantityType, quantity: Quantity(value, unit), start: start, end: end,
                                               timeZone: zone, device: device, syncIdentifier: syncID, syncVersion: syncVersion,
                                               userEntered: userEntered, metadata: metadata))
        case .category(let categoryType):
            guard scan.unit == nil else { return nil }
            let index: Int
            if let number = scan.valueNumber {
                guard number == number.rounded(), number >= 0, number < Double(categoryType.valueNames.count) else { return nil }
                index = Int(number)
            } else if let range = scan.valueName, let found = categoryType.valueNames.firstIndex(of: text(range)) {
                index = found
            } else {
                return nil
            }
            payload = .category(CategorySample(id: id, type: categoryType, value: index, start: start, end: end, timeZone: zone,
                                               device: device, syncIdentifier: syncID, syncVersion: syncVersion,
                                               userEntered: userEntered, metadata: metadata))
        case .workout:
            return nil
        }
    }
}
