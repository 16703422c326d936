import BandGATT
import BandGATTClient
import BandProtocol
import BandReader
import BandWire
import Testing

/// The kind of device, and so the session's plan, told from the discovered database alone.
@Suite struct BandKindTests {
    typealias C = GATTUUID.Characteristic
    typealias S = GATTUUID.Service

    /// A database of `services`, each a (service UUID, [(characteristic UUID, properties)]).
    static func database(_ services: [(BluetoothUUID, [(BluetoothUUID, CharacteristicProperties)])]) -> GATTDatabase {
        var handle: UInt16 = 1
        var built: [GATTService] = []
        for (uuid, characteristics) in services {
            let start = handle
            var list: [GATTCharacteristic] = []
            for (characteristic, properties) in characteristics {
                list.append(GATTCharacteristic(uuid: characteristic, declarationHandle: handle + 1, valueHandle: handle + 2,
                                               properties: properties, endHandle: handle + 3))
                handle += 3
            }
            built.append(GATTService(uuid: uuid, handle: start, endHandle: handle, characteristics: list))
            handle += 1
        }
        return GATTDatabase(services: built)
    }

    static let heartRate = (S.heartRate, [(C.heartRateMeasurement, CharacteristicProperties.notify)])
    static let battery = (S.battery, [(C.batteryLevel, CharacteristicProperties([.read, .notify]))])
    static let clock = (S.currentTime, [(C.currentTime, CharacteristicProperties([.read, .write])),
                                        (C.localTimeInformation, CharacteristicProperties([.read, .write]))])
    static let rsc = (S.runningSpeedAndCadence, [(C.rscMeasurement, CharacteristicProperties.notify)])
    static let motion = (InfiniTimeMotionService.service, [(InfiniTimeMotionService.stepCount, CharacteristicProperties([.read, .notify])),
                                                           (InfiniTimeMotionService.rawMotion, CharacteristicProperties([.read, .notify]))])
    static let activity = (BandActivityService.service, [(BandActivityService.liveActivity, CharacteristicProperties([.read, .notify])),
                                                         (BandActivityService.historyControlPoint, CharacteristicProperties([.write, .indicate])),
                                                         (BandActivityService.historyData, CharacteristicProperties.notify),
                                                         (BandActivityService.authControlPoint, CharacteristicProperties([.write, .indicate]))])

    static func plan(_ services: [(BluetoothUUID, [(BluetoothUUID, CharacteristicProperties)])]) -> SessionPlan {
        SessionPlan(profile: BandProfile(database(services)))
    }

    @Test func aBandKitBandAuthenticatesSyncsAndStreamsEverything() {
        let plan = Self.plan([Self.clock, Self.battery, Self.heartRate, Self.rsc, Self.activity])
        #expect(plan == SessionPlan(kind: .bandkit, authenticates: true, syncsHistory: true, setsClock: true,
                                    subscriptions: [.liveActivity, .heartRate, .rsc, .battery]))
    }

    @Test func anInfiniTimeWatchIsToldByItsMotionServiceAndStreamsHeartRateStepsAndBattery() {
        let plan = Self.plan([Self.clock, Self.battery, Self.heartRate, Self.motion])
        #expect(plan == SessionPlan(kind: .infinitime, authenticates: false, syncsHistory: false, setsClock: true,
                                    subscriptions: [.heartRate, .stepCount, .battery]))
    }

    @Test func aMotionServiceWithoutTheStepCountIsNotInfiniTime() {
        let partial = (InfiniTimeMotionService.service, [(InfiniTimeMotionService.rawMotion, CharacteristicProperties.notify)])
        #expect(Self.plan([Self.heartRate, partial]).kind == .heartRateStrap)
    }

    @Test func aStrapStreamsHeartRateAndBatteryOnlyAndLeavesAClocklessDeviceAlone() {
        #expect(Self.plan([Self.heartRate, Self.battery]) == SessionPlan(kind: .heartRateStrap, authenticates: false, syncsHistory: false,
                                                                        setsClock: false, subscriptions: [.heartRate, .battery]))
    }

    @Test func aFootpodStreamsRSC() {
        #expect(Self.plan([Self.rsc]) == SessionPlan(kind: .rscFootpod, authenticates: false, syncsHistory: false,
                                                     setsClock: false, subscriptions: [.rsc]))
    }

    @Test func aCharacteristicWithoutNotifyIsNotSubscribed() {
        let readOnlyBattery = (S.battery, [(C.batteryLevel, CharacteristicProperties.read)])
        #expect(Self.plan([Self.heartRate, readOnlyBattery]).subscriptions == [.heartRate])
    }

    @Test func nothingRecordableIsOther() {
        let plan = Self.plan([Self.battery, (S.deviceInformation, [(C.modelNumberString, CharacteristicProperties.read)])])
        #expect(plan.kind == .other)
        #expect(plan.subscriptions.isEmpty)
    }

    @Test func advertisingGivesAGuessFromServicesAndName() {
        #expect(BandKind(advertisedServices: [S.heartRate, BandActivityService.service], name: nil) == .bandkit)
        #expect(BandKind(advertisedServices: [], name: "InfiniTime") == .infinitime)
        #expect(BandKind(advertisedServices: [InfiniTimeMotionService.service], name: nil) == .infinitime)
        #expect(BandKind(advertisedServices: [S.heartRate], name: "Polar H10 1234") == .heartRateStrap)
        #expect(BandKind(advertisedServices: [S.runningSpeedAndCadence], name: nil) == .rscFootpod)
        #expect(BandKind(advertisedServices: [S.battery], name: "Infinitime") == .other)
    }

    @Test func theMotionUUIDsFollowInfiniTimesScheme() {
        #expect(InfiniTimeMotionService.service.description.lowercased() == "00030000-78fc-48fe-8e23-433b3a1942d0")
        #expect(InfiniTimeMotionService.stepCount.description.lowercased() == "00030001-78fc-48fe-8e23-433b3a1942d0")
    }
}
