import BandGATT
import BandGATTClient
import BandProtocol
import BandWire

/// What the reader is talking to, told from GATT discovery (``init(profile:)``): the answer
/// decides the session's plan (``SessionPlan``), so every kind runs the one session core.
///
/// | kind | told by | what the reader does |
/// |---|---|---|
/// | ``bandkit`` | the band's activity service (all four characteristics) | authenticate, set the clock, sync history, stream counters, HR, RSC, battery |
/// | ``infinitime`` | InfiniTime's Motion service with its step count | set the clock and zone (CTS as local time, LTI), stream HR and step count, battery |
/// | ``heartRateStrap`` | Heart Rate Measurement, no activity or Motion service | stream HR (contact, energy, RR), battery |
/// | ``rscFootpod`` | RSC Measurement without Heart Rate | stream RSC, battery |
/// | ``other`` | none of these | nothing to record: the session says so and ends |
///
/// The order of the checks matters: a BandKit band also serves Heart Rate and RSC, InfiniTime
/// also serves Heart Rate; the most specific service wins.
public enum BandKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    case bandkit = "bandkit"
    case infinitime = "infinitime"
    case heartRateStrap = "hr-strap"
    case rscFootpod = "rsc-footpod"
    case other = "other"

    /// The kind a discovered GATT database shows.
    public init(profile: BandProfile) {
        if profile.activity != nil {
            self = .bandkit
        } else if profile.motionStepCount != nil {
            self = .infinitime
        } else if profile.heartRateMeasurement != nil {
            self = .heartRateStrap
        } else if profile.rscMeasurement != nil {
            self = .rscFootpod
        } else {
            self = .other
        }
    }

    /// A guess from advertising alone (`band scan`): the advertised service UUIDs and name.
    /// Discovery after connecting (``init(profile:)``) is what the session goes by; a device may
    /// advertise fewer services than it serves (InfiniTime advertises none of its own, only its
    /// name), so this is marked as a guess where it is shown.
    public init(advertisedServices services: [BluetoothUUID], name: String?) {
        if services.contains(BandActivityService.service) {
            self = .bandkit
        } else if services.contains(InfiniTimeMotionService.service) || name == "InfiniTime" || name == "Pinetime-JF" {
            self = .infinitime
        } else if services.contains(GATTUUID.Service.heartRate) {
            self = .heartRateStrap
        } else if services.contains(GATTUUID.Service.runningSpeedAndCadence) {
            self = .rscFootpod
        } else {
            self = .other
        }
    }

    /// For people: what the device is, in a few words.
    public var description: String {
        switch self {
        case .bandkit: "BandKit band (activity service)"
        case .infinitime: "InfiniTime watch (Motion service)"
        case .heartRateStrap: "heart-rate strap (standard Heart Rate service)"
        case .rscFootpod: "RSC footpod (standard Running Speed and Cadence service)"
        case .other: "unknown device (no service BandKit records)"
        }
    }

    /// Whether the device keeps minute history the reader syncs (only a BandKit band does).
    public var keepsHistory: Bool { self == .bandkit }
}
