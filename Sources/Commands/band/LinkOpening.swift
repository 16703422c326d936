import BandBlueZ
import BandLink
import BandReader
import CommandKit
import SocketSecurity
import BandKitSystem

/// Opens the ATT link an address names: the simulator's `SOCK_SEQPACKET` socket, or the LE ATT
/// channel (L2CAP CID 4) through the kernel's Bluetooth stack.
///
/// On Bluetooth, `security` medium sets `BT_SECURITY` before connecting, so the kernel runs SMP
/// pairing (or encrypts with the bond from an earlier pairing) as part of the connection; our
/// own agent answers the kernel's confirmation request, so no bluetoothd is needed. The bond
/// (LE long-term keys) is kept next to the band keystore, `smp-keys` in the same directory.
struct LinkOpener {
    var keystore: Keystore
    /// Raise link security: SMP on Bluetooth links; on the simulator's socket link, pair (when
    /// ``pairing``) or encrypt with the bond kept in `socket-bonds`.
    var secure: Bool
    /// `band pair`: pair afresh rather than encrypt with a stored bond.
    var pairing = false
    /// Where `--record` writes the session, if anywhere.
    var recording: SessionRecording?
    /// Say what the pairing agent does (`band pair`): which requests it answered, which keys it kept.
    var explainPairing = false
    /// `band pair`: where a passkey comes from when the device shows one; the agent's failure
    /// is left here when the link could not be opened.
    var passkey: PasskeyEntry?
    /// Why SMP did not complete on the last Bluetooth connection, when the agent knows.
    var pairingFailure: PairingFailureBox?
    /// The gateway's background devices: the channel of a link the kernel made, handed over
    /// (``KernelAutoConnect/takeLink(_:)``), adopted instead of connecting; nil from it: connect.
    var handedLink: ((BandAddress) throws -> L2CAPATTLink?)?
    var onRecordingError: (String) -> Void = { CommandRunner.printError("band: \($0)") }

    func open(_ address: BandAddress) throws -> any ATTBearer {
        let bearer = try openLink(address)
        return recording?.wrap(bearer, address: address, onError: onRecordingError) ?? bearer
    }

    private func openLink(_ address: BandAddress) throws -> any ATTBearer {
        switch address {
        case .simulator(let path):
            let link = try SeqPacketLink.connect(path: path)
            if secure {
                do { try secureSocketLink(link, path: path) } catch {
                    link.close()
                    throw error
                }
            }
            return link
        case .bluetooth(let peer, let adapterName):
            if let handed = try handedLink?(address) {
                do { return try adopt(handed, adapter: adapterName) } catch {
                    handed.close()
                    throw error
                }
            }
            let adapter = try BlueZAdapter(adapterName)
            _ = try adapter.prepareForLowEnergy()
            // bluetoothd would have: a device that refuses legacy pairing needs it on this side too.
            if try adapter.enableSecureConnections() {
                CommandRunner.printError("band: turned LE Secure Connections on for \(adapterName) (mgmt Set Secure Connections; bluetoothd is not running to do it)")
            }
            let bonds = LongTermKeyStore(path: keystore.smpKeysPath)
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
                // The kernel's Authentication Failed follows connect()'s EACCES by a moment.
                pairingFailure?.failure = agent.awaitFailure(timeout: .seconds(2)).map(PairingRefusal.init)
                throw error
            }
        }
    }

    /// A handed-over link: encrypted with the bond when the device was paired (the kernel made
    /// it at low security), with an agent answering the kernel meanwhile. The bonds are in the
    /// kernel already (whoever hands links over keeps them there, ``KernelAutoConnect``): loading
    /// them here would clear the adapter's keys under its other links.
    private func adopt(_ link: L2CAPATTLink, adapter name: String) throws -> L2CAPATTLink {
        guard secure else { return link }
        let adapter = try BlueZAdapter(name)
        let agent = try PairingAgent(adapter: adapter, keyStore: LongTermKeyStore(path: keystore.smpKeysPath), log: { _ in })
        try link.raiseSecurity(to: .medium, timeout: .seconds(20), agent: agent)
        return link
    }

    /// The socket link's stand-in for SMP (SocketSecurity; docs/protocol.md, "Link security on
    /// the socket link"): `band pair` pairs, a later run encrypts with the bond it kept. A peer
    /// without security on the socket link (the BandKit band, a replay) answers Request Not
    /// Supported and the link goes on as it always did.
    private func secureSocketLink(_ link: SeqPacketLink, path: String) throws {
        let bonds = SocketBondFile(path: keystore.directory + "/socket-bonds")
        let mode: SocketPairingInitiator.Mode
        if pairing {
            mode = .pair(ioCapability: passkey?.isAvailable == true ? .keyboardOnly : .noInputNoOutput)
        } else if let bond = try bonds.bond(for: path) {
            mode = .encrypt(bond)
        } else {
            return
        }
        let random = try KernelRandom.bytes(count: SocketSecurityPDU.valueSize + SocketSecurityPDU.diversifierSize)
        var offset = 0
        var initiator = SocketPairingInitiator(mode: mode, random: { count in
            defer { offset += count }
            return Array(random[offset..<offset + count])
        })
        let peer = "sim:\(path)"
        let outcome = SocketLinkSecurity.run(&initiator, on: link, passkey: { passkey?.passkey(for: peer) })
        switch outcome {
        case .noLinkSecurity, .encrypted:
            return
        case .bonded(let bond):
            try keystore.prepareDirectory()
            try bonds.save(bond, for: path)
            if explainPairing { CommandRunner.printError("band: pairing: bonded on the socket link; bond kept in \(bonds.path)") }
        case .failed(let failure):
            pairingFailure?.failure = PairingRefusal(failure, peer: peer, offeredKeyboard: passkey?.isAvailable == true)
            throw LinkError.securityFailed(failure.description)
        }
    }
}

/// Why link security failed, in the words `band pair` explains it with (``PasskeyEntry``): from
/// the pairing agent on Bluetooth, from the socket link's own pairing on the simulator.
enum PairingRefusal: Equatable {
    /// The device asked for its passkey and none could be had.
    case passkeyNeeded(peer: String)
    /// The device refused the passkey given.
    case passkeyRejected(peer: String, why: String)
    case failed

    init(_ failure: PairingFailure) {
        switch failure {
        case .passkeyNeeded(let peer): self = .passkeyNeeded(peer: "\(peer)")
        case .passkeyRejected(let peer, let status): self = .passkeyRejected(peer: "\(peer)", why: "\(status)")
        case .failed: self = .failed
        }
    }

    /// `offeredKeyboard`: whether the reader declared KeyboardOnly. Without it, a device that
    /// pairs only with a passkey refuses Just Works (Authentication Requirements): a passkey is needed.
    init(_ failure: SocketSecurityFailure, peer: String, offeredKeyboard: Bool) {
        switch failure {
        case .passkeyNotEntered: self = .passkeyNeeded(peer: peer)
        case .refused(.authenticationRequirements) where !offeredKeyboard: self = .passkeyNeeded(peer: peer)
        case .refused(.confirmValueFailed), .refused(.passkeyEntryFailed), .peerConfirmMismatch:
            self = .passkeyRejected(peer: peer, why: failure.description)
        default: self = .failed
        }
    }
}

extension ReaderOptions {
    /// Pairing always raises security; later connections do for bands that were paired (bonded),
    /// and not for a plain heart-rate strap, which may not support pairing at all.
    func linkOpener(pairing: Bool, recording: SessionRecording? = nil, passkey: PasskeyEntry? = nil,
                    pairingFailure: PairingFailureBox? = nil) -> LinkOpener {
        let bonded = pairing || ((try? keystore.band(address.keystoreKey)) ?? nil) != nil
        return LinkOpener(keystore: keystore, secure: bonded, pairing: pairing, recording: recording, explainPairing: pairing,
                          passkey: passkey, pairingFailure: pairingFailure)
    }
}

extension Keystore {
    /// The LE long-term keys (bonds) kept beside the keystore.
    var smpKeysPath: String { directory + "/smp-keys" }
}

/// Carries the pairing agent's failure out of ``LinkOpener/open(_:)`` (called deep inside the
/// reader service) to the command that explains it.
final class PairingFailureBox {
    var failure: PairingRefusal?
}
