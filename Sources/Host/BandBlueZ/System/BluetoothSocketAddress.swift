import BandKitSystem
import BandLink
import BandWire
internal import CBlueZ
#if canImport(Glibc)
import Glibc
#endif

/// The kernel's Bluetooth socket constants, from libbluetooth's headers (some are macros
/// Swift cannot import, read through the CBlueZ shim).
enum BluetoothSocket {
    static let family = Int32(bandkit_af_bluetooth())
    static let protocolHCI = Int32(bandkit_btproto_hci())
    static let protocolL2CAP = Int32(bandkit_btproto_l2cap())
    static let levelBluetooth = Int32(bandkit_sol_bluetooth())
    static let levelL2CAP = Int32(bandkit_sol_l2cap())
    static let levelHCI = Int32(bandkit_sol_hci())
    static let optionSecurity = Int32(bandkit_bt_security())
    static let optionL2CAPOptions = Int32(bandkit_l2cap_options())
    static let optionReceiveMTU = Int32(bandkit_bt_rcvmtu())
    static let optionSendMTU = Int32(bandkit_bt_sndmtu())
    static let optionHCIFilter = Int32(bandkit_hci_filter())
    /// The LE Attribute Protocol's fixed L2CAP channel (Core 5.4 Vol 3 Part A §2.1).
    static let attChannel: UInt16 = 4
}

/// `struct sockaddr_hci` for a raw HCI or management socket.
struct HCISocketAddress {
    var storage: sockaddr_hci

    /// `device` is the adapter index (`hci0` → 0); `HCI_DEV_NONE` for the management channel.
    init(device: UInt16, channel: UInt16) {
        storage = sockaddr_hci(hci_family: sa_family_t(BluetoothSocket.family), hci_dev: device, hci_channel: channel)
    }

    func withRawAddress<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        withUnsafeBytes(of: storage, body)
    }

    static let management = HCISocketAddress(device: UInt16(HCI_DEV_NONE), channel: UInt16(HCI_CHANNEL_CONTROL))
}

/// `struct sockaddr_l2` for the LE ATT fixed channel: PSM 0, CID 4, an address and its type.
///
/// Kept as the exact bytes handed to the kernel (padding zeroed), laid out by the C
/// declaration's field offsets.
struct L2CAPSocketAddress {
    private(set) var bytes: [UInt8]

    init(_ address: BluetoothAddress, type: LEAddressType, channel: UInt16 = BluetoothSocket.attChannel) {
        bytes = [UInt8](repeating: 0, count: MemoryLayout<sockaddr_l2>.size)
        let family = sa_family_t(BluetoothSocket.family)
        let addressBytes = address.wireOrder
        bytes.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: family, toByteOffset: MemoryLayout<sockaddr_l2>.offset(of: \.l2_family)!, as: sa_family_t.self)
            // PSM stays 0; the CID is little-endian on every host (htobs()).
            raw.storeBytes(of: channel.littleEndian, toByteOffset: MemoryLayout<sockaddr_l2>.offset(of: \.l2_cid)!, as: UInt16.self)
            raw.storeBytes(of: type.bluezAddressType, toByteOffset: MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr_type)!, as: UInt8.self)
            let start = MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr)!
            for (i, byte) in addressBytes.enumerated() { raw[start + i] = byte }
        }
    }

    /// Reads what the kernel wrote (e.g. the peer of an accepted connection).
    init(raw: UnsafeRawBufferPointer) {
        bytes = Array(raw.prefix(MemoryLayout<sockaddr_l2>.size))
        if bytes.count < MemoryLayout<sockaddr_l2>.size {
            bytes += [UInt8](repeating: 0, count: MemoryLayout<sockaddr_l2>.size - bytes.count)
        }
    }

    /// The address the kernel wrote; an LE ATT socket's peer is always LE public or random,
    /// so anything else (which the kernel does not produce there) reads as public.
    var address: LEAddress {
        let start = MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr)!
        let type = bytes[MemoryLayout<sockaddr_l2>.offset(of: \.l2_bdaddr_type)!]
        return LEAddress(BluetoothAddress(wireOrder: bytes[start..<start + 6]), type: LEAddressType.fromBlueZ(type) ?? .public)
    }

    var channel: UInt16 {
        let offset = MemoryLayout<sockaddr_l2>.offset(of: \.l2_cid)!
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    func withRawAddress<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        bytes.withUnsafeBytes(body)
    }
}

/// Adapter names as the kernel and BlueZ tools print them.
public enum AdapterName {
    /// `hci0` → 0. Plain numbers are accepted too.
    public static func index(of name: String) throws(AddressSyntaxError) -> UInt16 {
        let digits = name.hasPrefix("hci") ? name.dropFirst(3) : Substring(name)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let index = UInt16(digits), index < 0xFFFF else {
            throw AddressSyntaxError(text: name, reason: "an adapter is named hciN (N a number), e.g. hci0")
        }
        return index
    }
}

extension SystemCalls {
    /// A Bluetooth socket, or the reason this kernel cannot make one.
    func bluetoothSocket(type: Int32, protocol proto: Int32) throws(LinkError) -> Int32 {
        switch socket(domain: BluetoothSocket.family, type: type | SocketFlags.closeOnExec, protocol: proto) {
        case .success(let fd): return fd
        case .failure(.addressFamilyNotSupported):
            throw .system("socket(AF_BLUETOOTH) (this kernel has no Bluetooth support)", .addressFamilyNotSupported)
        case .failure(let error): throw .system("socket(AF_BLUETOOTH)", error)
        }
    }
}
