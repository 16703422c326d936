import BandGATT
import BandGATTClient
import BandReader
import BandTrace
import BandWire
import Foundation
import HealthStore

/// Which connections of a trace go into the store, as whose device, through which profile.
struct ReplayPlan {
    struct Chosen {
        var side: ATTServerSide
        var profile: BandProfile
        var device: RecordedDevice

        func makeFeed(store: HealthStore, timeZone: TimeZone, report: @escaping (ReaderEvent) -> Void) throws -> RecordedSessionFeed {
            guard let identifier = device.deviceIdentifier else { throw TraceStoreReplay.Failure.unidentifiedDevice(side.connection) }
            let writer = try SampleWriter(store: store, deviceIdentifier: identifier, device: device.storeDevice)
            return try RecordedSessionFeed(profile: profile, writer: writer, timeZone: timeZone, report: report)
        }
    }

    private(set) var connections: [TraceConnection: Chosen] = [:]
    private(set) var skipped: [(TraceConnection, String)] = []
    /// A connection with something to store but no way to name its device.
    private(set) var unidentified: TraceConnection?

    init(recording: TraceRecording, options: TraceStoreReplay.Options) {
        var connectionsSeen = Set(recording.pduCounts.keys)
        connectionsSeen.formUnion(recording.peers.keys)
        var lastDatabaseByPeer: [LEAddress: RecordedGATTDatabase] = [:]
        for connection in connectionsSeen.sorted() {
            if let wanted = options.connectionHandle, connection.handle != wanted { continue }
            let side = [ATTServerSide(connection: connection, server: .remoteDevice), ATTServerSide(connection: connection, server: .recordingHost)]
                .max { a, b in
                    let reconstructor = recording.reconstructor
                    return (reconstructor.notificationCount(a), recording.database(a).attributeCount)
                        < (reconstructor.notificationCount(b), recording.database(b).attributeCount)
                }!
            let peer = recording.peers[connection]
            var database = recording.database(side)
            if database.characteristics.isEmpty, let peer, let earlier = lastDatabaseByPeer[peer] {
                database = earlier  // a bonded reconnection without discovery
            }
            if !database.characteristics.isEmpty, let peer { lastDatabaseByPeer[peer] = database }
            database = Self.adding(options.overrides, to: database)
            let profile = BandProfile(Self.gattDatabase(database))
            guard profile.heartRateMeasurement != nil || profile.rscMeasurement != nil || profile.batteryLevel != nil
                    || profile.activity != nil else {
                skipped.append((connection, database.characteristics.isEmpty
                    ? "no GATT discovery in the trace (name the characteristics with --map HANDLE=UUID)"
                    : "no characteristic the reader stores (heart rate, RSC, battery, band activity)"))
                continue
            }
            var device = RecordedDevice(database: database, peer: side.server == .remoteDevice ? peer : nil)
            if let name = options.device { device.address = name; device.information.serialNumber = nil }
            if let name = options.sourceName { device.information.name = name }
            if !device.isIdentified, recording.reconstructor.notificationCount(side) > 0, unidentified == nil { unidentified = connection }
            connections[connection] = Chosen(side: side, profile: profile, device: device)
        }
    }

    /// `--map HANDLE=UUID` for a trace without discovery: each mapped value handle becomes a
    /// characteristic (declared one handle before it) inside the service the SIG defines it in,
    /// so the reader's profile finds it where it looks. Handles the trace did discover win.
    static func adding(_ overrides: [UInt16: BluetoothUUID], to database: RecordedGATTDatabase) -> RecordedGATTDatabase {
        typealias C = GATTUUID.Characteristic
        typealias S = GATTUUID.Service
        let parents: [BluetoothUUID: BluetoothUUID] = [
            C.heartRateMeasurement: S.heartRate, C.bodySensorLocation: S.heartRate, C.heartRateControlPoint: S.heartRate,
            C.rscMeasurement: S.runningSpeedAndCadence, C.rscFeature: S.runningSpeedAndCadence, C.batteryLevel: S.battery,
        ]
        var result = database
        var added: [BluetoothUUID: [RecordedCharacteristic]] = [:]
        for (handle, uuid) in overrides.sorted(by: { $0.key < $1.key }) where handle > 1 && database.characteristic(valueHandle: handle) == nil {
            guard let parent = parents[uuid] else { continue }
            added[parent, default: []].append(RecordedCharacteristic(handle: handle - 1, properties: [.read, .notify], valueHandle: handle, uuid: uuid))
        }
        for (parent, characteristics) in added {
            let start = characteristics.map(\.handle).min()!, end = characteristics.map(\.valueHandle).max()!
            result.services.append(RecordedService(handle: start, endGroupHandle: end, uuid: parent))
            result.characteristics += characteristics
        }
        return RecordedGATTDatabase(services: result.services, includes: result.includes, characteristics: result.characteristics,
                                    descriptors: result.descriptors, values: result.values, readErrors: result.readErrors,
                                    serverMTU: result.serverMTU)
    }

    /// The reader's view of a recorded database: primary services with their characteristics
    /// (end handles as discovery would find them) and descriptors.
    static func gattDatabase(_ database: RecordedGATTDatabase) -> GATTDatabase {
        var services: [GATTService] = []
        for service in database.services where service.isPrimary {
            var characteristics: [GATTCharacteristic] = []
            for (index, characteristic) in database.characteristics.enumerated() where service.contains(characteristic.handle) {
                let descriptors = database.descriptors(ofCharacteristicAt: index).map { GATTDescriptor(uuid: $0.uuid, handle: $0.handle) }
                characteristics.append(GATTCharacteristic(uuid: characteristic.uuid, declarationHandle: characteristic.handle,
                                                          valueHandle: characteristic.valueHandle, properties: characteristic.properties,
                                                          endHandle: database.endHandle(ofCharacteristicAt: index), descriptors: descriptors))
            }
            services.append(GATTService(uuid: service.uuid, handle: service.handle, endHandle: service.endGroupHandle,
                                        characteristics: characteristics))
        }
        return GATTDatabase(services: services)
    }
}
