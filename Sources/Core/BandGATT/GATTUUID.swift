import BandWire

/// The SIG-assigned 16-bit UUIDs BandKit speaks, by role.
///
/// Values from the Bluetooth SIG Assigned Numbers document (§3.4 services, §3.5 declarations
/// and descriptors, §3.8 characteristics), cross-checked against Wireshark's
/// `epan/dissectors/packet-bluetooth.c` UUID table.
public enum GATTUUID {
    public enum Service {
        public static let genericAccess = BluetoothUUID(0x1800)
        public static let genericAttribute = BluetoothUUID(0x1801)
        public static let currentTime = BluetoothUUID(0x1805)
        public static let deviceInformation = BluetoothUUID(0x180A)
        public static let heartRate = BluetoothUUID(0x180D)
        public static let battery = BluetoothUUID(0x180F)
        public static let runningSpeedAndCadence = BluetoothUUID(0x1814)
    }

    /// Attribute types of the declarations that structure a GATT database (Core 5.4 Vol 3 Part G §3).
    public enum Declaration {
        public static let primaryService = BluetoothUUID(0x2800)
        public static let secondaryService = BluetoothUUID(0x2801)
        public static let include = BluetoothUUID(0x2802)
        public static let characteristic = BluetoothUUID(0x2803)
    }

    public enum Descriptor {
        public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
        public static let characteristicUserDescription = BluetoothUUID(0x2901)
        public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
        public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
        public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
    }

    public enum Characteristic {
        public static let deviceName = BluetoothUUID(0x2A00)
        public static let appearance = BluetoothUUID(0x2A01)
        public static let serviceChanged = BluetoothUUID(0x2A05)
        public static let dateTime = BluetoothUUID(0x2A08)
        public static let localTimeInformation = BluetoothUUID(0x2A0F)
        public static let batteryLevel = BluetoothUUID(0x2A19)
        public static let systemID = BluetoothUUID(0x2A23)
        public static let modelNumberString = BluetoothUUID(0x2A24)
        public static let serialNumberString = BluetoothUUID(0x2A25)
        public static let firmwareRevisionString = BluetoothUUID(0x2A26)
        public static let hardwareRevisionString = BluetoothUUID(0x2A27)
        public static let softwareRevisionString = BluetoothUUID(0x2A28)
        public static let manufacturerNameString = BluetoothUUID(0x2A29)
        public static let currentTime = BluetoothUUID(0x2A2B)
        public static let heartRateMeasurement = BluetoothUUID(0x2A37)
        public static let bodySensorLocation = BluetoothUUID(0x2A38)
        public static let heartRateControlPoint = BluetoothUUID(0x2A39)
        public static let rscMeasurement = BluetoothUUID(0x2A53)
        public static let rscFeature = BluetoothUUID(0x2A54)
    }
}
