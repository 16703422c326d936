/// One stretch of a day: from `startMinute` (minutes after local midnight) until the next
/// segment starts, the wearer does `kind`, optionally at a given cadence and stride.
public struct ScenarioSegment: Sendable, Hashable {
    public var startMinute: Int
    public var kind: ActivityKind
    public var cadence: Double?
    public var strideMetres: Double?

    public init(startMinute: Int, kind: ActivityKind, cadence: Double? = nil, strideMetres: Double? = nil) {
        self.startMinute = startMinute
        self.kind = kind
        self.cadence = cadence
        self.strideMetres = strideMetres
    }
}
