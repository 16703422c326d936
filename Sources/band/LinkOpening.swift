import BandBlueZ
import BandLink
import BandReader
import CommandKit

/// Opens the ATT link an address names: the simulator's `SOCK_SEQPACKET` socket, or the LE ATT
/// channel (L2CAP CID 4) through the kernel's Bluetooth stack.
///
/// On Bluetooth, `security` medium sets `BT_SECURITY` before connecting, so the kernel runs SMP
/// pairing (or encrypts with the bond from an earlier pairing) as part of the connection; our
/// own agent answers the kernel's confirmation request, so no bluetoothd is needed. The bond
/// (LE long-term keys) is kept next to the band keystore, `smp-keys` in the same directory.
struct LinkOpener {
    var keystore: Keystore
    /// Raise link security (SMP) on Bluetooth links.
    var secure: Bool
    /// Where `--record` writes the session, if anywhere.
    var recording: SessionRecording?
    /// Say what the pairing agent does (`band pair`): which requests it answered, which keys it kept.
    var explainPairing = false
    /// `band pair`: where a passkey comes from when the device shows one; the agent's failure
    /// is left here when the link could not be opened.
    var passkey: PasskeyEntry?
    /// Why SMP did not complete on the last Bluetooth connection, when the agent knows.
    var pairingFailure: PairingFailureBox?
    var onRecordingError: (String) -> Void = { CommandRunner.printError("band: \($0)") }

    func open(_ address: BandAddress) throws -> any ATTBearer {
        let bearer = try openLink(address)
        return recording?.wrap(bearer, address: address, onError: onRecordingError) ?? bearer
    }

    private func openLink(_ address: BandAddress) throws -> any ATTBearer {
        switch address {
        case .simulator(let path):
            return try SeqPacketLink.connect(path: path)
        case .bluetooth(let peer, let adapterName):
            let adapter = try BlueZAdapter(adapterName)
            _ = try adapter.prepareForLowEnergy()
            let bonds = LongTermKeyStore(path: keystore.directory + "/smp-keys")
            // With no bluetoothd agent, nobody else answers the kernel's User Confirmation Request:
            // without this agent SMP times out after 30 s and connect() fails with EACCES.
            let explain = explainPairing
            let agent = try PairingAgent(adapter: adapter, keyStore: bonds, log: { message in
                if explain { CommandRunner.printError("band: pairing agent: \(message)") }
            })
            _ = try agent.restoreKeys()
            if let passkey {
                // KeyboardOnly only when someone can type: scripts without --passkey keep the
                // NoInputNoOutput declaration, and a BandKit band pairs Just Works either way.
                if passkey.isAvailable { try agent.enablePasskeyEntry() }
                agent.passkeyEntry = { peer in passkey.passkey(for: "\(peer)") }
            }
            do {
                return try L2CAPATTLink.connect(to: peer, from: agent.adapterAddress, security: secure ? .medium : .low,
                                                timeout: .seconds(passkey?.isAvailable == true ? 60 : 20), agent: agent)
            } catch {
                pairingFailure?.failure = agent.failure
                throw error
            }
        }
    }
}

extension ReaderOptions {
    /// Pairing always raises security; later connections do for bands that were paired (bonded),
    /// and not for a plain heart-rate strap, which may not support pairing at all.
    func linkOpener(pairing: Bool, recording: SessionRecording? = nil, passkey: PasskeyEntry? = nil,
                    pairingFailure: PairingFailureBox? = nil) -> LinkOpener {
        let bonded = pairing || ((try? keystore.band(address.keystoreKey)) ?? nil) != nil
        return LinkOpener(keystore: keystore, secure: bonded, recording: recording, explainPairing: pairing,
                          passkey: passkey, pairingFailure: pairingFailure)
    }
}

/// Carries the pairing agent's failure out of ``LinkOpener/open(_:)`` (called deep inside the
/// reader service) to the command that explains it.
final class PairingFailureBox {
    var failure: PairingFailure?
}
