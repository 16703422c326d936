import BandATT
import BandGATTServer
import BandLink
import BandWire

/// The band's side of ATT: PDUs from the client go to the one GATT server (BandGATTServer),
/// answered from the band's attribute table; its response goes out from the transmit buffer,
/// and what the client did (MTU agreed, a write accepted, an indication confirmed) is acted on
/// afterwards. Nothing a client sends can crash the band.
extension SimulatedBand {
    /// The ATT_MTU the band offers: the largest worth negotiating.
    public static let serverMTU = ATT.maximumMTU

    /// Handles every PDU already waiting on the connection (never blocks), then sends the next
    /// burst of an ongoing history transfer.
    public func pump() {
        while let current = connection {
            let received: Int?
            do throws(LinkError) {
                received = try current.bearer.receive(into: receiveBuffer, timeout: .zero)
            } catch {
                if case .pduTooLarge(let size, _) = error {
                    log("connection \(current.number): ignored a \(size)-byte PDU larger than any ATT_MTU")
                    continue
                }
                disconnect(reason: error == .closed ? "reader hung up" : "\(error)")
                return
            }
            guard let length = received else { break }
            handlePDU(UnsafeRawBufferPointer(rebasing: receiveBuffer[0..<length]))
        }
        continueTransfer()
    }

    /// Handles one PDU from the client.
    func handlePDU(_ bytes: UnsafeRawBufferPointer) {
        guard let current = connection, !bytes.isEmpty else { return }
        var source = BandAttributeSource(band: self)
        var server = current.server
        let output = UnsafeMutableRawBufferPointer(rebasing: transmitBuffer[0..<current.mtu])
        let result = server.handle(bytes, source: &source, into: output)
        current.server = server
        // The response goes first (at the MTU in force before an exchange, §3.4.2); what it
        // caused follows, unless sending it lost the connection.
        if result.responseLength > 0, !transmit(result.responseLength, on: current) { return }
        switch result.event {
        case .exchangedMTU(let agreed):
            current.bearer.mtu = agreed
        case .wrote(_, let followUp):
            perform(followUp)
        case .confirmedIndication:
            indicationConfirmed()
        case .none, .writeRefused, .unexpected:
            // A refused write got its Error Response (a command none); a client sending server
            // PDUs or signed writes is ignored.
            break
        }
    }
}
