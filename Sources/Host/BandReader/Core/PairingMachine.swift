import BandProtocol

/// `band pair` with no I/O: what the device is and what the band answers go in, what to do next
/// comes out. ``BandReaderService/pair()`` performs the actions on a link and the keystore.
///
/// | event | action |
/// |---|---|
/// | start, a BandKit band | choose the reader ID (this host's known one, so the band replaces its key for us, else a random one) |
/// | start, another kind | no key exchange (the link's pairing, SMP or a passkey, is the whole of it): read Device Information for a bond-only entry |
/// | reader ID chosen | send Pair(reader ID) to the Auth Control Point; the wearer confirms on the band |
/// | pairing answered: success with a key | report paired, read Device Information |
/// | pairing answered: anything else | fail: refused with the band's status; nothing is stored |
/// | device read | save the entry (reader ID, key, device, kind) |
/// | a stop while the wearer is awaited | stopped: nothing is stored |
/// | the link failed (a disconnect mid-pairing, a timeout) | fail with the link's error: nothing is stored |
public struct PairingMachine {
    public enum Action {
        case chooseReaderID
        case sendPairingRequest(PairingRequest)
        case readDeviceInformation
        case report(ReaderEvent)
        /// Store this keystore entry (a bond-only one has reader ID 0 and no key), then done.
        case save(readerID: UInt64, key: [UInt8], device: BandDeviceInfo, kind: BandKind)
        case stopped
        case fail(SessionError)
    }

    public let kind: BandKind
    private var readerID: UInt64 = 0
    private var key: [UInt8] = []

    public init(kind: BandKind) { self.kind = kind }

    public func start() -> [Action] {
        kind == .bandkit ? [.chooseReaderID] : [.readDeviceInformation]
    }

    public mutating func readerIDChosen(_ id: UInt64) -> [Action] {
        readerID = id
        return [.sendPairingRequest(PairingRequest(readerID: id))]
    }

    public mutating func pairingAnswered(_ response: PairingResponse) -> [Action] {
        guard response.status == .success, let key = response.key else { return [.fail(.authenticationRefused(response.status))] }
        self.key = key.array
        return [.report(.paired(readerID: readerID)), .readDeviceInformation]
    }

    public func deviceRead(_ device: BandDeviceInfo) -> [Action] {
        [.save(readerID: readerID, key: key, device: device, kind: kind)]
    }

    /// A stop was requested while the band (its wearer) was awaited.
    public func stopRequested() -> [Action] { [.stopped] }

    public func linkFailed(_ error: SessionError) -> [Action] { [.fail(error)] }
}
