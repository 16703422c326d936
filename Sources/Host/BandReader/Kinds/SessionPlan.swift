import BandGATT
import BandGATTClient
import BandProtocol
import BandWire

/// One kind's profile of the session core: which steps ``SessionMachine`` takes and which
/// characteristics the live stream subscribes to. Decided from the discovery result alone, no I/O.
public struct SessionPlan: Sendable, Equatable {
    /// A live characteristic the session subscribes to.
    public enum Subscription: String, Sendable, Equatable {
        case liveActivity = "live-activity"
        case heartRate = "heart-rate"
        case rsc
        case stepCount = "step-count"
        case battery
    }

    public var kind: BandKind
    /// Application-level authentication with the stored key (the band's key exchange).
    public var authenticates: Bool
    /// Minute history synced at connect, while streaming and at the deadline.
    public var syncsHistory: Bool
    /// Current Time (and Local Time Information) read and, when off, written.
    public var setsClock: Bool
    /// Notifications enabled, in this order; only characteristics present with the notify property.
    public var subscriptions: [Subscription]

    public init(kind: BandKind, authenticates: Bool, syncsHistory: Bool, setsClock: Bool, subscriptions: [Subscription]) {
        self.kind = kind
        self.authenticates = authenticates
        self.syncsHistory = syncsHistory
        self.setsClock = setsClock
        self.subscriptions = subscriptions
    }

    /// The plan for a discovered database.
    public init(profile: BandProfile) {
        let kind = BandKind(profile: profile)
        let wanted: [Subscription] = switch kind {
        case .bandkit: [.liveActivity, .heartRate, .rsc, .battery]
        case .infinitime: [.heartRate, .stepCount, .battery]
        case .heartRateStrap: [.heartRate, .battery]
        case .rscFootpod: [.rsc, .battery]
        case .other: []
        }
        self.init(kind: kind, authenticates: kind == .bandkit, syncsHistory: kind.keepsHistory,
                  setsClock: profile.currentTime != nil,
                  subscriptions: wanted.filter { profile.characteristic(for: $0)?.properties.contains(.notify) ?? false })
    }
}

extension BandProfile {
    /// The characteristic behind a live subscription, if the device has it.
    public func characteristic(for subscription: SessionPlan.Subscription) -> GATTCharacteristic? {
        switch subscription {
        case .liveActivity: activity?.liveActivity
        case .heartRate: heartRateMeasurement
        case .rsc: rscMeasurement
        case .stepCount: motionStepCount
        case .battery: batteryLevel
        }
    }
}
