import BandKitSystem
import BandGATTClient
import BandProtocol
import BandWire

/// The band's key exchange and per-connection authentication over its Auth Control Point
/// (docs/protocol.md, "Auth Control Point").
///
/// Link-level security (SMP, raised with `BT_SECURITY` on a BlueZ link) is the link's business
/// and happens when it is opened; this is the application layer above it.
public enum BandAuthentication {
    /// First pairing's request: asks the band for a key for the reader ID in `request`; the
    /// wearer confirms on the band. Returns the band's answer (``PairingMachine`` judges it), or
    /// nil when a stop was requested while waiting.
    public static func requestPairing(_ connection: BandConnection, _ request: PairingRequest) throws(SessionError) -> PairingResponse? {
        let auth = try controlPoint(connection)
        try connection.subscribe(auth, .indications, during: .pairing)
        // The wearer has to react: allow longer than a plain control point round trip.
        let saved = connection.controlPointTimeout
        connection.controlPointTimeout = max(saved, .seconds(60))
        defer { connection.controlPointTimeout = saved }
        guard let bytes = try connection.request(request.encodedBytes(capacity: PairingRequest.size),
                                                 on: auth, what: "the pairing request", during: .pairing) else { return nil }
        return try connection.decode(bytes, as: PairingResponse.self, what: "pairing")
    }

    /// Challenge–response with the stored key; checks the band's proof too (mutual).
    /// Returns false when a stop was requested while waiting.
    @discardableResult
    public static func authenticate(_ connection: BandConnection, readerID: UInt64, key: BandKey) throws(SessionError) -> Bool {
        let auth = try controlPoint(connection)
        try connection.subscribe(auth, .indications, during: .authentication)
        let readerNonce: UInt64
        do {
            var nonce: UInt64 = 0
            try withUnsafeMutableBytes(of: &nonce) { (raw) throws(RandomSourceError) in try KernelRandom.fill(raw) }
            readerNonce = nonce
        } catch {
            throw .controlPointProtocol("no random number for the challenge: \(error)")
        }
        // The decisions are AuthenticationMachine's; this performs its exchange on the link.
        var machine = AuthenticationMachine(readerID: readerID, key: key, readerNonce: readerNonce)
        var action = machine.start()
        while true {
            switch action {
            case .sendChallenge(let request):
                guard let bytes = try connection.request(request.encodedBytes(capacity: ChallengeRequest.size), on: auth,
                                                         what: "the authentication challenge", during: .authentication) else { return false }
                action = machine.challengeAnswered(try connection.decode(bytes, as: ChallengeResponse.self, what: "challenge"))
            case .sendProof(let request):
                guard let bytes = try connection.request(request.encodedBytes(capacity: ProofRequest.size), on: auth,
                                                         what: "the authentication proof", during: .authentication) else { return false }
                action = machine.proofAnswered(try connection.decode(bytes, as: ProofResponse.self, what: "proof"))
            case .authenticated:
                return true
            case .fail(let error):
                throw error
            }
        }
    }

    static func controlPoint(_ connection: BandConnection) throws(SessionError) -> GATTCharacteristic {
        guard let activity = connection.profile.activity else {
            throw .notABand("the device has no band activity service: it is a plain sensor and needs no pairing")
        }
        return activity.authControlPoint
    }
}
