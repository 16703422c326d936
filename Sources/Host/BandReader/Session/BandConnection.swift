import BandGATT
import BandGATTClient
import BandLink
import BandWire

/// One connection to a band or strap: the GATT client, what discovery found, and the routing of
/// everything the device pushes.
///
/// Control point responses (indications on a control point) are queued per control point and
/// picked up by `request(_:on:what:timeout:)`; every other value goes to ``valueHandler``
/// straight from the client's receive buffer. Waiting is one `poll()` over the link and the stop
/// request, so Ctrl-C ends any wait at once.
public final class BandConnection {
    public let client: GATTClient
    public let profile: BandProfile
    /// Called for every notification or indication that is not a control point response. The
    /// bytes are valid only during the call.
    public var valueHandler: ((UInt16, UnsafeRawBufferPointer) -> Void)?
    public let stop: StopRequest
    public var controlPointTimeout: Duration = .seconds(30)

    private var controlPointHandles: Set<UInt16> = []
    private var inbox: [UInt16: [[UInt8]]] = [:]
    private var poller = Poller()
    private let clock = ContinuousClock()

    /// Exchanges the MTU and discovers everything.
    public init(bearer: any ATTBearer, stop: StopRequest, transactionTimeout: Duration = .seconds(30)) throws(SessionError) {
        client = GATTClient(bearer: bearer, transactionTimeout: transactionTimeout)
        self.stop = stop
        let database: GATTDatabase
        do {
            try client.exchangeMTU()
            database = try client.discoverAll()
        } catch {
            throw .gatt(error, during: .discovery)
        }
        profile = BandProfile(database)
        if let activity = profile.activity {
            controlPointHandles = [activity.authControlPoint.valueHandle, activity.historyControlPoint.valueHandle]
        }
        if let fd = bearer.pollDescriptor { poller.watch(fd) }
        if let fd = stop.pollDescriptor { poller.watch(fd) }
        client.eventHandler = { [unowned self] event in
            if event.kind == .indication, controlPointHandles.contains(event.handle) {
                inbox[event.handle, default: []].append(Array(event.value))
            } else {
                valueHandler?(event.handle, event.value)
            }
        }
    }

    public func close() { client.close() }

    // MARK: Waiting

    /// Waits until `deadline` for the device to send something and handles it. Returns false when
    /// a stop was requested (now or during the wait), true otherwise (event handled or deadline).
    @discardableResult
    public func pump(until deadline: ContinuousClock.Instant, during phase: SessionPhase) throws(SessionError) -> Bool {
        if stop.isRequested { return false }
        do throws(GATTError) {
            if let fd = client.bearer.pollDescriptor {
                do { try poller.wait(until: deadline) } catch { throw GATTError.link(error) }
                if let stopFD = stop.pollDescriptor, poller.isReady(stopFD) {
                    stop.descriptorBecameReadable()
                    if stop.isRequested { return false }
                }
                if poller.isReady(fd) { try client.processEvents(timeout: .zero) }
            } else {
                let remaining = clock.now.duration(to: deadline)
                try client.processEvents(timeout: max(.zero, remaining))
            }
        } catch {
            throw .gatt(error, during: phase)
        }
        return !stop.isRequested
    }

    // MARK: Control points

    /// Writes `value` to a control point and waits for the response it indicates.
    public func request(_ value: [UInt8], on controlPoint: GATTCharacteristic, what: String,
                        during phase: SessionPhase) throws(SessionError) -> [UInt8]? {
        inbox[controlPoint.valueHandle] = []
        do { try client.write(value, to: controlPoint.valueHandle) } catch { throw .gatt(error, during: phase) }
        return try awaitResponse(on: controlPoint, what: what, during: phase)
    }

    /// Waits for the next indication on a control point; nil when a stop was requested.
    public func awaitResponse(on controlPoint: GATTCharacteristic, what: String,
                              during phase: SessionPhase) throws(SessionError) -> [UInt8]? {
        let deadline = clock.now.advanced(by: controlPointTimeout)
        while inbox[controlPoint.valueHandle, default: []].isEmpty {
            guard clock.now < deadline else { throw .controlPointTimeout(what) }
            guard try pump(until: deadline, during: phase) else { return nil }
        }
        return inbox[controlPoint.valueHandle]!.removeFirst()
    }

    /// Decodes a control point response as `T`.
    public func decode<T: WireDecodable>(_ bytes: [UInt8], as type: T.Type, what: String) throws(SessionError) -> T {
        do { return try T(parsingAll: bytes) } catch {
            throw .controlPointProtocol("\(what) response \(Hex.encode(bytes)) does not decode: \(error)")
        }
    }

    // MARK: Subscriptions

    /// Enables notifications or indications, once per connection.
    public func subscribe(_ characteristic: GATTCharacteristic, _ kind: GATTSubscription, during phase: SessionPhase) throws(SessionError) {
        do { try client.subscribe(to: characteristic, kind) } catch { throw .gatt(error, during: phase) }
    }

    /// Reads a value (long values included).
    public func read(_ characteristic: GATTCharacteristic, during phase: SessionPhase) throws(SessionError) -> [UInt8] {
        do { return try client.read(characteristic.valueHandle) } catch { throw .gatt(error, during: phase) }
    }

    public func write(_ value: [UInt8], to characteristic: GATTCharacteristic, during phase: SessionPhase) throws(SessionError) {
        do { try client.write(value, to: characteristic.valueHandle) } catch { throw .gatt(error, during: phase) }
    }
}
