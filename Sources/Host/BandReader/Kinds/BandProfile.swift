import BandGATT
import BandGATTClient
import BandProtocol
import BandWire

/// The characteristics the reader uses, found in a discovered GATT database. Everything is
/// optional except through ``activity``: a standard heart-rate strap has only Heart Rate (and
/// perhaps Battery and Device Information), and the reader streams heart rate from it alone.
public struct BandProfile: Sendable {
    /// The band's own activity service; all four characteristics, or nil.
    public struct ActivityService: Sendable {
        public var liveActivity: GATTCharacteristic
        public var historyControlPoint: GATTCharacteristic
        public var historyData: GATTCharacteristic
        public var authControlPoint: GATTCharacteristic
    }

    public var heartRateMeasurement: GATTCharacteristic?
    public var rscMeasurement: GATTCharacteristic?
    public var batteryLevel: GATTCharacteristic?
    public var currentTime: GATTCharacteristic?
    public var localTimeInformation: GATTCharacteristic?
    public var deviceName: GATTCharacteristic?
    /// Device Information strings present, by characteristic UUID.
    public var deviceInformation: [BluetoothUUID: GATTCharacteristic]
    public var activity: ActivityService?
    /// InfiniTime's step count (Motion service, `InfiniTimeMotionService`), or nil.
    public var motionStepCount: GATTCharacteristic?

    public init(_ database: GATTDatabase) {
        typealias C = GATTUUID.Characteristic
        typealias S = GATTUUID.Service
        heartRateMeasurement = database.characteristic(C.heartRateMeasurement, in: S.heartRate)
        rscMeasurement = database.characteristic(C.rscMeasurement, in: S.runningSpeedAndCadence)
        batteryLevel = database.characteristic(C.batteryLevel, in: S.battery)
        currentTime = database.characteristic(C.currentTime, in: S.currentTime)
        localTimeInformation = database.characteristic(C.localTimeInformation, in: S.currentTime)
        deviceName = database.characteristic(C.deviceName, in: S.genericAccess)
        var information: [BluetoothUUID: GATTCharacteristic] = [:]
        for uuid in [C.manufacturerNameString, C.modelNumberString, C.serialNumberString, C.hardwareRevisionString,
                     C.firmwareRevisionString, C.softwareRevisionString] {
            if let characteristic = database.characteristic(uuid, in: S.deviceInformation) { information[uuid] = characteristic }
        }
        deviceInformation = information
        motionStepCount = database.characteristic(InfiniTimeMotionService.stepCount, in: InfiniTimeMotionService.service)
        let service = BandActivityService.self
        if let live = database.characteristic(service.liveActivity, in: service.service),
           let control = database.characteristic(service.historyControlPoint, in: service.service),
           let data = database.characteristic(service.historyData, in: service.service),
           let auth = database.characteristic(service.authControlPoint, in: service.service) {
            activity = ActivityService(liveActivity: live, historyControlPoint: control, historyData: data, authControlPoint: auth)
        } else {
            activity = nil
        }
    }
}
