import BandKitSystem
import BandLink
import BandWire
import Synchronization

/// Keeps the kernel's long-term keys for one adapter equal to a key file, loading them only
/// when the file's keys differ from those loaded last (at the first call, and after a pairing
/// changed the file).
///
/// Load Long Term Keys replaces every key of the adapter: the kernel clears its list, then adds
/// the new one. A process with several links on one adapter (the gateway) that loaded the keys
/// for each session would clear them while another link looks its key up to encrypt. Loading
/// once per change keeps the keys in place; a link whose key was just added by a pairing finds
/// it, since its session asks (``loadIfChanged()``) before it encrypts.
public final class LongTermKeyLoader: Sendable {
    public let keyStore: LongTermKeyStore
    public let adapterAddress: BluetoothAddress
    private let load: @Sendable ([LongTermKey]) throws(LinkError) -> Void
    /// The keys last loaded (nil: none yet); the lock also keeps two loads from interleaving.
    private let loaded = Mutex<[LongTermKey]?>(nil)

    /// `load` gives the kernel the adapter's keys (``BlueZAdapter/loadLongTermKeys(_:)``).
    public init(keyStore: LongTermKeyStore, adapterAddress: BluetoothAddress,
                load: @escaping @Sendable ([LongTermKey]) throws(LinkError) -> Void) {
        self.keyStore = keyStore
        self.adapterAddress = adapterAddress
        self.load = load
    }

    /// Loads the file's keys for the adapter unless they are those loaded last (any thread).
    /// Returns how many keys were loaded, nil when nothing changed. A failed load is not
    /// remembered: the next call tries again.
    @discardableResult
    public func loadIfChanged() throws(LinkError) -> Int? {
        let keys: [LongTermKey]
        do throws(KeyFileError) { keys = try keyStore.keys(forAdapter: adapterAddress) } catch {
            throw .system("load keys: \(error)", Errno(rawValue: 74))
        }
        return try loaded.withLock { last throws(LinkError) -> Int? in
            guard last != keys else { return nil }
            try load(keys)
            last = keys
            return keys.count
        }
    }
}
