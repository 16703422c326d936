// libFuzzer harness for the LL connection follower of air captures (BandTrace): arbitrary
// packets of link types 256 (LINKTYPE_BLUETOOTH_LE_LL_WITH_PHDR) and 272 (LINKTYPE_NORDIC_BLE)
// fed straight to CaptureHCIUnwrapper (pseudo-header parsers, then LLConnectionFollower), then
// the L2CAP fragments through L2CAPReassembler, without the pcapng framing in front (the pcapng
// harness spends most of its inputs on block framing; this one spends them on LL state).
//
// Input: a sequence of packets, each
//   u8 flags (bit 0: 272 instead of 256; bit 1: the time step is in ms, not µs; bit 2: time
//              goes back by the step instead of forward), u16 LE time step, u8 length,
//   `length` bytes of packet data (cut at the end of the input).
//
// Properties checked on every input:
//  1. nothing traps, whatever the bytes and their order;
//  2. air link types never yield HCI packets or adapter removals;
//  3. every fragment is a view inside its packet's bytes, at its stated offset (a CRC-failed
//     PDU kept because the next packet acknowledged it: a copy, returned before that packet's
//     record and marked), on the
//     connection followed now (handle ≥ 1); a connection change names that connection: a
//     CONNECT_IND the next handle (1, 2, …, wrapping after 0x0EFF), an LL_TERMINATE_IND the
//     handle followed;
//  4. a malformed packet's error offset lies inside the packet (a kept CRC-failed one: an earlier packet's);
//  5. the follower's counters never exceed the packets it was given, and it counts one
//     connection per connection change reported as connected;
//  6. the same packets processed twice give the same records and counters (no hidden state
//     outside the follower).
import BandHCI
import BandTrace
import BandWire

struct Outcome: Equatable {
    var records: [String] = []
    var statistics: LLConnectionFollower.Statistics?
    var handle: UInt16 = 0
}

func follow(_ input: UnsafeRawBufferPointer) -> Outcome {
    var unwrapper = CaptureHCIUnwrapper()
    let reassembler = L2CAPReassembler(slotCount: 4)
    var outcome = Outcome()
    var position = 0
    var time: Int64 = 1_764_460_800_000_000
    var index = 0
    var connectedHandle: UInt16 = 0
    var connectionsReported = 0
    while position + 4 <= input.count {
        let flags = input[position]
        let step = Int64(input[position + 1]) | Int64(input[position + 2]) << 8
        let start = position + 4
        let length = min(Int(input[position + 3]), input.count - start)
        position = start + length
        let delta = flags & 2 != 0 ? step * 1000 : step
        time = flags & 4 != 0 ? time - delta : time + delta
        let data = UnsafeRawBufferPointer(rebasing: input[start..<start + length])
        let packet = CapturePacket(index: index, offset: start - 4, dataOffset: start, interfaceID: 0,
                                   linkType: flags & 1 != 0 ? .nordicBLE : .bluetoothLELinkLayerWithPseudoHeader,
                                   unixMicroseconds: time, originalLength: length, data: data)
        // A CRC-failed PDU this packet acknowledged comes first, with its own (earlier) place.
        var records: [TraceRecord] = []
        if let record = unwrapper.nextRecord(packet) { records.append(record) }
        if let deferred = unwrapper.takeDeferredRecord() { records.append(deferred) }
        precondition(records.count >= 1 && records.last!.index == index && records.last!.unixMicroseconds == time)
        if records.count == 2 {
            precondition(records[0].index < index, "a kept CRC-failed PDU after the packet that acknowledged it")
            if case .l2capFragment(let kept) = records[0].content { precondition(kept.crcFailed, "an earlier fragment not marked CRC-failed") }
        }
        index += 1
        for (order, record) in records.enumerated() {
            let isThisPacket = order == records.count - 1
            switch record.content {
            case .packet, .adapterRemoved:
                preconditionFailure("an air capture packet became an HCI packet")
            case .ignored:
                outcome.records.append("-")
            case .malformed(let error):
                precondition(!isThisPacket || (error.offset >= start && error.offset <= start + length),
                             "error offset \(error.offset) outside the packet \(start)..<\(start + length)")
                outcome.records.append("malformed \(error.offset)")
            case .l2capFragment(let piece):
                precondition(piece.handle >= 1 && piece.handle == unwrapper.follower.handle && piece.handle == connectedHandle,
                             "fragment on \(piece.handle), following \(unwrapper.follower.handle)")
                if piece.fragment.count > 0, !piece.crcFailed {
                    let base = data.baseAddress!
                    let at = piece.fragment.baseAddress!
                    precondition(at >= base && at + piece.fragment.count <= base + data.count, "fragment outside its packet")
                    precondition(piece.fragmentOffset == start + (at - base), "fragment offset \(piece.fragmentOffset) is not where it lies")
                }
                let key = L2CAPReassembler.Key(adapter: 0, handle: piece.handle, direction: piece.direction)
                let result = reassembler.push(key, boundary: piece.boundary, fragment: piece.fragment)
                precondition(reassembler.openFrames <= 4, "more open frames than slots")
                let frame = result.frame.map { "frame \($0.payload.count)" } ?? "-"
                outcome.records.append("fragment \(piece.handle) \(piece.direction) \(piece.fragment.count) \(frame) \(result.anomaly.map { "\($0)" } ?? "")")
            case .connectionChange(let handle, let change):
                switch change {
                case .connected:
                    let expected: UInt16 = connectedHandle == 0x0EFF ? 1 : connectedHandle + 1
                    precondition(handle == expected, "connection \(handle) after \(connectedHandle)")
                    connectedHandle = handle
                    connectionsReported += 1
                case .disconnected:
                    precondition(handle == connectedHandle, "disconnected \(handle) while following \(connectedHandle)")
                }
                outcome.records.append("change \(handle) \(change)")
            }
        }
    }
    _ = unwrapper.nextRecord(nil)
    let s = unwrapper.follower.statistics
    let counted = s.dataPDUs + s.emptyPDUs + s.controlPDUs + s.retransmissions + s.crcFailures + s.encryptedPDUs
        + s.otherAccessAddress + s.advertisingPDUs
    precondition(counted <= index, "\(counted) packets counted of \(index)")
    precondition(s.connections == connectionsReported, "\(s.connections) connections counted, \(connectionsReported) reported")
    outcome.statistics = s
    outcome.handle = unwrapper.follower.handle
    return outcome
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let first = follow(input)
    precondition(first == follow(input), "the same packets gave different records")
    return 0
}
