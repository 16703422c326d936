import BandKitSystem
import BandProtocol
import BandWire

/// Answers the BandKit band's Auth Control Point live, with the pairing key.
///
/// A recorded authentication cannot be replayed: the reader proves itself over a fresh random
/// nonce each time and checks the band's proof over it (mutual challenge–response,
/// docs/protocol.md "Auth Control Point"), which is the point of it. So a replay that wants a
/// live BandKit reader to accept it must hold the key, as the band does: given the keys the
/// reader's keystore holds (by reader ID), this answers Challenge and Proof requests exactly
/// as the firmware does, and the session drops the recorded auth indications.
public final class ReplayAuthResponder {
    /// Value handle of the Auth Control Point in the recorded database.
    public let controlPointHandle: UInt16
    private let keys: [UInt64: BandKey]
    private var challenge: (readerID: UInt64, readerNonce: UInt64, bandNonce: BandNonce)?
    /// Readers that proved themselves (for the summary).
    public private(set) var authenticated = 0

    public init(controlPointHandle: UInt16, keys: [UInt64: BandKey]) {
        self.controlPointHandle = controlPointHandle
        self.keys = keys
    }

    /// The Auth Control Point's value handle, if `database` is a BandKit band's.
    public static func controlPointHandle(in database: RecordedGATTDatabase) -> UInt16? {
        database.characteristics.first { $0.uuid == BandActivityService.authControlPoint }?.valueHandle
    }

    /// The indication that answers `request` written to the control point; nil when it is not
    /// an auth request (it is then ignored, as the band ignores it).
    public func respond(to request: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let decoded = try? AuthRequest(parsingAll: request) else { return nil }
        switch decoded {
        case .pair:
            // Pairing needs the wearer's confirmation on a real band; a replay has no wearer.
            return PairingResponse(status: .denied).encodedBytes(capacity: 32)
        case .challenge(let request):
            guard keys[request.readerID] != nil else {
                return ChallengeResponse(status: .unknownReader).encodedBytes(capacity: 32)
            }
            var nonce = BandNonce(Array(repeating: 0, count: BandNonce.capacity))
            do {
                let fresh = try KernelRandom.bytes(count: BandNonce.capacity)
                nonce = BandNonce(fresh)
            } catch {
                return ChallengeResponse(status: .denied).encodedBytes(capacity: 32)
            }
            challenge = (request.readerID, request.readerNonce, nonce)
            return ChallengeResponse(status: .success, bandNonce: nonce).encodedBytes(capacity: 32)
        case .proof(let request):
            guard let challenge, let key = keys[challenge.readerID] else {
                return ProofResponse(status: .noChallenge).encodedBytes(capacity: 32)
            }
            self.challenge = nil
            let expected = BandAuthenticator.readerProof(key: key, readerID: challenge.readerID,
                                                         readerNonce: challenge.readerNonce, bandNonce: challenge.bandNonce)
            guard BandAuthenticator.verify(request.proof, equals: expected) else {
                return ProofResponse(status: .wrongProof).encodedBytes(capacity: 32)
            }
            let proof = BandAuthenticator.bandProof(key: key, readerID: challenge.readerID,
                                                    readerNonce: challenge.readerNonce, bandNonce: challenge.bandNonce)
            authenticated += 1
            return ProofResponse(status: .success, bandProof: proof).encodedBytes(capacity: 32)
        }
    }
}
