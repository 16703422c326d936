import BandWire

/// What a FIT file holds, read into BandKit's terms: an activity (sessions, laps, track) or
/// monitoring intervals. Other file types (settings, courses, …) are named and not read.
public enum FitContent: Hashable, Sendable {
    case activity(FitActivity)
    case monitoring(FitMonitoring)
    /// A file of another type (`file_id.type`), or with no `file_id`.
    case other(type: Int64?)

    /// Decodes `bytes` and interprets its messages; damage and implausible values throw a
    /// ``ParseError`` naming the byte offset (of the field, or of the message holding the value).
    public init(parsing bytes: UnsafeRawBufferPointer) throws(ParseError) {
        var identity: FitFileIdentity?
        var activity = FitActivityBuilder()
        var monitoring = FitMonitoringBuilder()
        try FitDecoder.decode(bytes) { message throws(ParseError) in
            switch message.globalNumber {
            case FitMessageNumber.fileID:
                if identity == nil { identity = FitFileIdentity(message) }
            case FitMessageNumber.session, FitMessageNumber.lap, FitMessageNumber.record:
                try activity.add(message)
            case FitMessageNumber.monitoring, FitMessageNumber.monitoringInfo:
                try monitoring.add(message)
            default: break
            }
        }
        switch identity?.type {
        case FitFileType.activity?:
            self = .activity(try activity.finish(identity: identity!, fileEnd: bytes.count))
        case FitFileType.monitoringA?, FitFileType.monitoringB?:
            self = .monitoring(monitoring.finish(identity: identity!))
        case let type:
            self = .other(type: type)
        }
    }

    public init(parsing bytes: [UInt8]) throws(ParseError) {
        let result: Result<FitContent, ParseError> = bytes.withUnsafeBytes { raw in
            do throws(ParseError) { return .success(try FitContent(parsing: raw)) } catch { return .failure(error) }
        }
        self = try result.get()
    }
}

struct FitActivityBuilder {
    var sessions: [FitSummary] = []
    var laps: [FitSummary] = []
    var points: [FitTrackPoint] = []

    mutating func add(_ message: FitMessage) throws(ParseError) {
        switch message.globalNumber {
        case FitMessageNumber.session: if let session = try FitSummary(message, isSession: true) { sessions.append(session) }
        case FitMessageNumber.lap: if let lap = try FitSummary(message, isSession: false) { laps.append(lap) }
        default: if let point = try FitTrackPoint(message) { points.append(point) }
        }
    }

    /// The activity; a file without sessions (some devices write none) gets one spanning its laps
    /// and records, and a file with neither is refused.
    func finish(identity: FitFileIdentity, fileEnd: Int) throws(ParseError) -> FitActivity {
        var sessions = sessions
        if sessions.isEmpty {
            let times = points.map(\.timestamp) + laps.flatMap { [$0.start, $0.end] }
            guard let first = times.min(), let last = times.max() else {
                throw ParseError(.invalidValue, at: fileEnd, field: "activity with no session, lap or timestamped record")
            }
            guard FitPlausible.elapsed.contains(Double(last - first)) else {
                throw ParseError(.invalidValue, at: fileEnd, field: "activity without a session spanning more than 7 days")
            }
            sessions = [FitSummary(start: first, elapsed: Double(last - first),
                                   distance: points.compactMap(\.distance).max(),
                                   calories: laps.isEmpty ? nil : laps.compactMap(\.calories).reduce(0, +))]
        }
        return FitActivity(identity: identity, sessions: sessions, laps: laps, points: points)
    }
}

extension FitActivity {
    /// The activity as a FIT file: file_id, a timer start event, the records, a timer stop event,
    /// the laps, the sessions and the activity message, as devices write them.
    public func encoded() -> [UInt8] {
        var writer = FitWriter()
        var identity = identity
        identity.type = FitFileType.activity
        writer.write(0, global: FitMessageNumber.fileID, identity.fields)
        let first = sessions.map(\.start).min() ?? points.first?.timestamp ?? 0
        let last = sessions.map(\.end).max() ?? points.last?.timestamp ?? first
        func event(_ time: UInt32, type: Int64) -> [FitOutField] {
            [FitOutField(FitDecoder.timestampField, .uint32, .integer(Int64(time))),
             FitOutField(0, .enumeration, .integer(0)),  // event: timer
             FitOutField(1, .enumeration, .integer(type)),  // event_type: start / stop_all
             FitOutField(4, .uint8, .integer(0))]
        }
        writer.write(1, global: FitMessageNumber.event, event(first, type: 0))
        for point in points { writer.write(2, global: FitMessageNumber.record, point.fields) }
        writer.write(1, global: FitMessageNumber.event, event(last, type: 4))
        for (index, lap) in laps.enumerated() { writer.write(3, global: FitMessageNumber.lap, lap.fields(isSession: false, index: index)) }
        for (index, session) in sessions.enumerated() {
            let own = laps.indices.filter { laps[$0].start >= session.start && laps[$0].start < max(session.end, session.start + 1) }
            writer.write(4, global: FitMessageNumber.session,
                         session.fields(isSession: true, index: index, firstLap: own.first ?? 0, lapCount: own.count))
        }
        let timer = sessions.reduce(0.0) { $0 + ($1.timerTime ?? $1.elapsed) }
        writer.write(5, global: FitMessageNumber.activity, [
            FitOutField(FitDecoder.timestampField, .uint32, .integer(Int64(last))),
            FitOutField(0, .uint32, .integer(Int64((timer * 1000).rounded()))),
            FitOutField(1, .uint16, .integer(Int64(sessions.count))),
            FitOutField(2, .enumeration, .integer(0)),  // type: manual
            FitOutField(3, .enumeration, .integer(26)),  // event: activity
            FitOutField(4, .enumeration, .integer(1)),  // event_type: stop
        ])
        return writer.finish()
    }
}
