import BandATT
import BandWire

/// Read, Read Blob, Read Multiple and Write (Core 5.4 Vol 3 Part F §3.4.4–§3.4.5).
extension GATTServer {
    @inlinable
    func read<Source: GATTAttributeSource>(_ handle: UInt16, offset: Int, response: ATTOpcode, source: Source, writer: inout ByteWriter) -> Answer {
        guard let index = source.index(of: handle) else { return .failed(.invalidHandle, handle: handle) }
        let inRange: Bool
        do throws(ATTErrorCode) {
            inRange = try source.withValue(at: index) { value in
                guard offset <= value.count else { return false }
                writer.writeUInt8(response.rawValue)
                // At most ATT_MTU − 1 bytes; the client asks for the rest with Read Blob (§3.4.4.4).
                writer.writeBytes(UnsafeRawBufferPointer(rebasing: value[offset..<min(value.count, offset + mtu - 1)]))
                return true
            }
        } catch {
            return .failed(error, handle: handle)
        }
        return inRange ? .written : .failed(.invalidOffset, handle: handle)
    }

    /// The values concatenated and cut to ATT_MTU − 1 (§3.4.4.8); the first invalid or refused
    /// handle fails the whole request.
    @inlinable
    func readMultiple<Source: GATTAttributeSource>(_ request: ATTReadMultipleRequest, source: Source, writer: inout ByteWriter) -> Answer {
        writer.writeUInt8(ATTOpcode.readMultipleResponse.rawValue)
        for position in 0..<request.handleCount {
            let handle = request.handle(at: position)
            guard let index = source.index(of: handle) else { return .failed(.invalidHandle, handle: handle) }
            do throws(ATTErrorCode) {
                try source.withValue(at: index) { value in
                    let room = max(0, mtu - writer.count)
                    writer.writeBytes(UnsafeRawBufferPointer(rebasing: value[0..<min(value.count, room)]))
                }
            } catch {
                return .failed(error, handle: handle)
            }
        }
        return .written
    }

    @inlinable
    func write<Source: GATTAttributeSource>(
        _ value: UnsafeRawBufferPointer, to handle: UInt16, withResponse: Bool, source: inout Source,
        writer: inout ByteWriter, event: inout GATTServerEvent<Source.WriteEffect>
    ) -> Answer {
        let refusal: ATTErrorCode
        if let index = source.index(of: handle) {
            do throws(ATTErrorCode) {
                let effect = try source.write(value, at: index, withResponse: withResponse)
                if withResponse { writer.writeUInt8(ATTOpcode.writeResponse.rawValue) }
                event = .wrote(handle: handle, effect: effect)
                return .written
            } catch {
                refusal = error
            }
        } else {
            refusal = .invalidHandle
        }
        event = .writeRefused(handle: handle, error: refusal)
        // A command is never answered, not even with an error (§3.4.5.3).
        return withResponse ? .failed(refusal, handle: handle) : .written
    }
}
