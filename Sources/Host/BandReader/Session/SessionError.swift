import BandGATTClient
import BandLink
import BandProtocol
import BandWire

/// Why a band session ended.
public enum SessionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The GATT layer failed (link lost, timeout, ATT error on a required step).
    case gatt(GATTError, during: SessionPhase)
    /// The band refused authentication or pairing; retrying will not help.
    case authenticationRefused(AuthStatus)
    /// The band's own proof did not match our key: it is not the band we paired with.
    case bandProofMismatch
    /// No key is stored for this band.
    case notPaired(address: String)
    /// The device has no activity service, but the operation needs one (pairing, history sync).
    case notABand(String)
    /// A control point answered with something that does not decode or does not fit the request.
    case controlPointProtocol(String)
    /// The band did not answer a control point request in time.
    case controlPointTimeout(String)
    /// A history transfer failed its checks more times in a row than allowed.
    case historyRejected(HistoryTransferError)
    /// The health store failed a step; nothing was acknowledged to the band. Transient when the
    /// store was only busy.
    case store(StoreFailure)
    /// A sync tried the unreachable store `retries` times (``SessionMachine/storeRetry``) and
    /// stopped: what it could not commit was not acknowledged, so the band keeps that history.
    case storeGaveUp(StoreFailure, retries: Int)
    /// The keystore (the reader's keys for its bands) could not be read or written.
    case keystore(String)
    /// The link could not be opened.
    case connect(String)

    /// True when reconnecting could succeed (the link or the band had a transient problem).
    public var isTransient: Bool {
        switch self {
        case .gatt, .controlPointTimeout, .historyRejected, .connect, .controlPointProtocol: true
        case .store(let failure): failure.isTransient
        case .authenticationRefused(let status): status == .lockedOut
        case .bandProofMismatch, .notPaired, .notABand, .keystore, .storeGaveUp: false
        }
    }

    /// A store failure that trying again later can fix (``StoreFailure/isTransient``): the
    /// session keeps going without the store (``SessionMachine``).
    public var isTransientStoreFailure: Bool {
        if case .store(let failure) = self { return failure.isTransient }
        return false
    }

    /// A store failure a stream outlives by spooling: a transient one, a full disk, which
    /// freeing space fixes, or a store that cannot be opened yet (``StoreFailure/mayOpenLater``). A strap or a watch keeps no history, so its live minutes exist
    /// nowhere else; a `band sync` still ends on a full disk (the band keeps its records).
    public var isStoreFailureAStreamOutlives: Bool {
        if case .store(let failure) = self { return failure.isTransient || failure.isStorageFull || failure.mayOpenLater }
        return false
    }

    public var description: String {
        switch self {
        case .gatt(let error, let phase): return "\(phase): \(error)"
        case .authenticationRefused(let status): return "the band refused authentication: \(status)" + (status == .unknownReader || status == .wrongProof ? " (pair again with 'band pair')" : "")
        case .bandProofMismatch: return "the band's proof does not match the stored key: this is not the band that was paired"
        case .notPaired(let address): return "\(address) is not paired; run 'band pair \(address)' first"
        case .notABand(let why): return why
        case .controlPointProtocol(let why): return "band protocol error: \(why)"
        case .controlPointTimeout(let what): return "the band did not answer \(what) in time"
        case .historyRejected(let error): return "history transfer rejected: \(error)"
        case .store(let failure): return "health store: \(failure)"
        case .storeGaveUp(let failure, let retries):
            return "health store: unavailable after \(retries) retries, giving up (\(failure)); "
                + "nothing uncommitted was acknowledged, so the band keeps that history: run 'band sync' again when the store is back"
        case .keystore(let why): return why   // KeystoreError already says "keystore PATH …"
        case .connect(let why): return "cannot connect: \(why)"
        }
    }
}

/// The steps of a connection, for progress and for saying where a failure happened.
public enum SessionPhase: String, Sendable, CustomStringConvertible {
    case connect = "connecting"
    case discovery = "discovering services"
    case pairing
    case authentication = "authenticating"
    case clock = "setting the clock"
    case deviceInformation = "reading device information"
    case history = "syncing history"
    case subscribe = "subscribing"
    case streaming
    public var description: String { rawValue }
}
