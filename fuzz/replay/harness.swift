// libFuzzer harness for BandReplay: arbitrary bytes as the btsnoop trace `bandsim replay`
// reads, through the same calls the command makes — TraceReplayReader (fed the input from
// memory: the same damage policy and decoder as a file, no file I/O per input) into TraceRecording (GATTDatabaseReconstructor, notification timelines),
// then the one ATT server (BandGATTServer's GATTServer over a ReplayAttributeSource) answering a scripted client in memory, and
// the NotificationScheduler on a virtual clock. No sockets, no sleeps.
//
// Properties checked on every input:
//  1. nothing traps, whatever the bytes, with and without --keep-going;
//  2. damage names a place that exists: a packet or ATT PDU error names a record the
//     in-memory btsnoop reader has, at that record's byte offset; a framing or truncation
//     error is the one the in-memory reader stops with; skipped damage is in file order;
//  3. every reconstructed attribute handle is in 0x0001…0xFFFF and unique in the served
//     table; every recorded value is at most 512 bytes (Core 5.4 Vol 3 Part F §3.2.9);
//  4. every server response is a well-formed ATT PDU (ATTPDU(bytes:) decodes it) no longer
//     than the ATT_MTU in force, answers its request (its response opcode, or an Error
//     Response naming the request's opcode), and commands get none; discovery responses
//     list handles in ascending order inside the asked-for range (so a client loop ends);
//  5. Read then Read Blob at increasing offsets gives back exactly the value the server
//     holds; a 2-byte CCCD write is acknowledged and read back;
//  6. the scheduler sends or skips every recorded push exactly once, in order, never asks to
//     wait for an instant already past, and finishes;
//  7. replaying the same file twice gives the same outcome, databases, timelines and
//     server transcript (determinism).
#if canImport(Glibc)
import Glibc
#endif
import BandATT
import BandGATT
import BandGATTServer
import BandReplay
import BandTrace
import BandWire

/// `precondition` without its message under -O; these say what broke in the fuzzer's log.
func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fail(message()) }
}

func fail(_ message: String) -> Never {
    let line = Array("replay harness: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    abort()
}

// MARK: Loading, as `bandsim replay` does

struct Loaded {
    var outcome: TraceReplayReader.Outcome
    var recording: TraceRecording
    /// The first ATT PDUs with their sender and connection (resolved as TraceRecording does),
    /// to send again to the replaying server.
    var pdus: [(sender: ATTSender, connection: TraceConnection, bytes: [UInt8])] = []
}

func load(_ input: UnsafeRawBufferPointer, keepGoing: Bool) -> Result<Loaded, TraceDamage> {
    let reader: TraceReplayReader
    do throws(TraceDamage) {
        reader = try TraceReplayReader(bytes: input)
    } catch {
        return .failure(error)
    }
    var recording = TraceRecording()
    var resolver = ConnectionResolver()
    var pdus: [(sender: ATTSender, connection: TraceConnection, bytes: [UInt8])] = []
    let outcome = reader.run(keepGoing: keepGoing) { event in
        recording.consume(event)
        switch event {
        case .connected(let raw, _, _): resolver.connected(raw)
        case .disconnected: break
        case .att(let att, let sender, let raw):
            resolver.sawPDU(raw)
            if pdus.count < 64 { pdus.append((sender, resolver.resolve(raw), Array(att.trace.pdu))) }
        }
    }
    return .success(Loaded(outcome: outcome, recording: recording, pdus: pdus))
}

/// Where the in-memory reader finds records, and how it stops.
struct RecordMap {
    var offsets: [Int] = []
    var headerError: BtsnoopError?
    var endError: BtsnoopError?

    init(_ input: UnsafeRawBufferPointer) {
        var reader: BtsnoopMemoryReader
        do throws(BtsnoopError) {
            reader = try BtsnoopMemoryReader(bytes: input)
        } catch {
            headerError = error
            return
        }
        do throws(BtsnoopError) {
            while let record = try reader.next() { offsets.append(record.offset) }
        } catch {
            endError = error
        }
    }
}

func checkDamage(_ damage: TraceDamage, records: RecordMap, inputSize: Int) {
    check(damage.offset >= 0 && damage.offset <= inputSize, "damage offset \(damage.offset) outside \(inputSize) bytes: \(damage)")
    switch damage.kind {
    case .packet, .attPDU:
        guard let index = damage.recordIndex, index < records.offsets.count else {
            fail("\(damage) names no record the file has (\(records.offsets.count) records)")
        }
        check(records.offsets[index] == damage.offset, "\(damage): record \(index) is at offset \(records.offsets[index])")
    case .framing, .truncatedTail:
        let expected = records.headerError ?? records.endError
        check(expected != nil, "\(damage) but the in-memory reader reads the whole file")
        check(damage.recordIndex == expected!.recordIndex && damage.offset == expected!.offset,
                     "\(damage) but the in-memory reader stops with \(expected!)")
    case .io:
        fail("I/O failure on an in-memory trace: \(damage)")
    }
}

func checkOutcome(_ outcome: TraceReplayReader.Outcome, keepGoing: Bool, records: RecordMap, inputSize: Int) {
    check(outcome.records <= records.offsets.count, "replay read \(outcome.records) records, the file has \(records.offsets.count)")
    check(outcome.skipped.count <= 100 && outcome.skipped.count <= outcome.skippedCount, "skipped list out of bounds")
    check(keepGoing || outcome.skippedCount == 0, "damage skipped without --keep-going")
    var previous = -1
    for damage in outcome.skipped {
        checkDamage(damage, records: records, inputSize: inputSize)
        check(damage.leavesRestReadable || damage.kind == .truncatedTail, "skipped \(damage), which ends the file")
        let index = damage.recordIndex ?? 0
        check(index >= previous, "skipped damage out of file order")
        previous = index
    }
    if let stop = outcome.stoppedAt { checkDamage(stop, records: records, inputSize: inputSize) }
    if outcome.stoppedAt == nil, outcome.skippedCount == 0 {
        check(records.endError == nil, "replay ended cleanly, but the file ends with \(records.endError!)")
        check(outcome.records == records.offsets.count, "replay read \(outcome.records) of \(records.offsets.count) records")
    }
}

// MARK: The database

func checkDatabase(_ database: RecordedGATTDatabase, table: ReplayAttributeTable) {
    var previous: UInt16 = 0
    for attribute in table.attributes {
        check(attribute.handle > previous, "attribute handle 0x\(String(attribute.handle, radix: 16)) not unique, not ascending or 0")
        previous = attribute.handle
    }
    for (handle, value) in database.values {
        check(handle != 0, "a value recorded at handle 0")
        check(value.bytes.count <= ATT.maximumAttributeValueLength, "value at 0x\(String(handle, radix: 16)) is \(value.bytes.count) bytes")
    }
    for characteristic in database.characteristics {
        check(characteristic.handle != 0 && characteristic.valueHandle != 0, "characteristic at handle 0")
    }
    for service in database.services { check(service.handle != 0, "service at handle 0") }
    for include in database.includes { check(include.handle != 0, "include at handle 0") }
    for descriptor in database.descriptors { check(descriptor.handle != 0, "descriptor at handle 0") }
}

// MARK: The server, scripted

nonisolated(unsafe) let responseBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ATT.maximumMTU, alignment: 8)

/// The one GATT server over a replay's attribute source, as `--serve` runs it.
final class ServedReplay {
    var server: GATTServer
    var source: ReplayAttributeSource
    var table: ReplayAttributeTable { source.table }
    var mtu: Int { server.mtu }
    init(database: RecordedGATTDatabase, serverMTU: Int) {
        server = GATTServer(serverMTU: serverMTU)
        source = ReplayAttributeSource(database: database)
    }
    func handle(_ pdu: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Int {
        server.handle(pdu, source: &source, into: output).responseLength
    }
    func configuration(forValueHandle handle: UInt16) -> ClientCharacteristicConfiguration? {
        source.configuration(forValueHandle: handle)
    }
}

/// A client driving the replay's GATT server in memory, checking every answer; keeps a transcript.
struct ScriptedClient {
    let server: ServedReplay
    var transcript: [[UInt8]] = []
    /// Requests left; bounds the work per input.
    var budget = 250

    init(server: ServedReplay) { self.server = server }

    /// Sends `pdu`; returns the response (nil for none) after checking it.
    @discardableResult
    mutating func send(_ pdu: [UInt8]) -> [UInt8]? {
        budget -= 1
        let mtu = server.mtu
        // The buffer is exactly ATT_MTU long: a longer response traps inside the server.
        let output = UnsafeMutableRawBufferPointer(rebasing: responseBuffer[0..<mtu])
        let length = pdu.withUnsafeBytes { server.handle($0, into: output) }
        guard length > 0 else {
            transcript.append([])
            if let first = pdu.first {
                let opcode = ATTOpcode(rawValue: first)
                // A request always gets an answer (Invalid PDU when malformed, §3.4.1.1), and so
                // does an opcode nobody defined unless it is a command (§3.4.9).
                check(!opcode.isRequest, "request \(opcode) got no response")
                check(opcode.name != nil || opcode.isCommand, "undefined non-command \(opcode) got no response")
            }
            return nil
        }
        let response = Array(UnsafeRawBufferPointer(rebasing: output[0..<length]))
        transcript.append(response)
        check(length <= mtu, "response of \(length) bytes exceeds ATT_MTU \(mtu)")
        let request = ATTOpcode(rawValue: pdu[0])
        check(!request.isCommand, "command \(request) got a response")
        let decoded: ATTPDU = response.withUnsafeBytes { raw in
            do throws(ParseError) {
                return try ATTPDU(bytes: raw)
            } catch {
                fail("response \(response) to \(pdu) does not decode: \(error)")
            }
        }
        if case .errorResponse(let error) = decoded {
            check(error.requestOpcode == request, "Error Response names \(error.requestOpcode), request was \(request)")
        } else {
            check(decoded.opcode == request.responseOpcode, "\(request) answered with \(decoded.opcode)")
        }
        return response
    }

    // Request builders (Core 5.4 Vol 3 Part F §3.4).
    static func le(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    static func uuidBytes(_ uuid: BluetoothUUID) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            uuid.encode(into: &writer)
            return writer.count
        }
        return Array(bytes.prefix(count))
    }

    /// A discovery loop as a client runs it: from 0x0001, each next request starting after
    /// the last handle the previous response listed, until an error or the end of the range.
    /// `handles` pulls (handle, group end) pairs out of a response.
    mutating func discover(_ opcode: UInt8, parameters: [UInt8], handles: ([UInt8]) -> [(UInt16, UInt16)]) {
        var start: UInt16 = 1
        while budget > 0 {
            guard let response = send([opcode] + Self.le(start) + Self.le(0xFFFF) + parameters),
                  response[0] != ATTOpcode.errorResponse.rawValue else { return }
            let found = handles(response)
            check(!found.isEmpty, "discovery response lists nothing: \(response)")
            var previous: UInt16 = 0
            for (handle, _) in found {
                check(handle >= start && handle > previous, "discovery response handles out of order or range: \(response) after start \(start)")
                previous = handle
            }
            let last = found.map { max($0.0, $0.1) }.max()!
            guard last < 0xFFFF else { return }
            start = last + 1
        }
    }

    static func entries(_ response: [UInt8], headerLength: Int, entryLength: Int, groupEnd: Bool) -> [(UInt16, UInt16)] {
        guard entryLength >= 2 else { return [] }
        var result: [(UInt16, UInt16)] = []
        var index = headerLength
        while index + entryLength <= response.count {
            let handle = UInt16(response[index]) | UInt16(response[index + 1]) << 8
            let end = groupEnd ? UInt16(response[index + 2]) | UInt16(response[index + 3]) << 8 : handle
            result.append((handle, end))
            index += entryLength
        }
        check(index == response.count, "response entries do not fill the PDU: \(response)")
        return result
    }

    mutating func run(clientMTU: UInt16?) {
        if let clientMTU { send([ATTOpcode.exchangeMTURequest.rawValue] + Self.le(clientMTU)) }
        let table = server.table
        // Primary and secondary services, characteristics, includes, descriptors.
        for type in [GATTUUID.Declaration.primaryService, GATTUUID.Declaration.secondaryService] {
            discover(ATTOpcode.readByGroupTypeRequest.rawValue, parameters: Self.uuidBytes(type)) {
                Self.entries($0, headerLength: 2, entryLength: Int($0[1]), groupEnd: true)
            }
        }
        for type in [GATTUUID.Declaration.characteristic, GATTUUID.Declaration.include] {
            discover(ATTOpcode.readByTypeRequest.rawValue, parameters: Self.uuidBytes(type)) {
                Self.entries($0, headerLength: 2, entryLength: Int($0[1]), groupEnd: false)
            }
        }
        discover(ATTOpcode.findInformationRequest.rawValue, parameters: []) {
            Self.entries($0, headerLength: 2, entryLength: $0[1] == 1 ? 4 : 18, groupEnd: false)
        }
        // Read Using Characteristic UUID, for a few of the recorded characteristics.
        for characteristic in table.database.characteristics.prefix(4) {
            discover(ATTOpcode.readByTypeRequest.rawValue, parameters: Self.uuidBytes(characteristic.uuid)) {
                Self.entries($0, headerLength: 2, entryLength: Int($0[1]), groupEnd: false)
            }
        }
        // Primary services by UUID.
        for service in table.database.services.prefix(3) {
            discover(ATTOpcode.findByTypeValueRequest.rawValue,
                     parameters: Self.le(0x2800) + Self.uuidBytes(service.uuid)) {
                Self.entries($0, headerLength: 1, entryLength: 4, groupEnd: true)
            }
        }
        // Every attribute read whole: Read, then Read Blob while the pieces are full.
        for attribute in table.attributes.prefix(48) where budget > 0 {
            readWhole(attribute)
        }
        // Subscribe through every CCCD, read it back, and try a wrong length.
        for attribute in table.attributes where budget > 0 {
            guard case .descriptor(let descriptor, _) = attribute.role, descriptor.isClientCharacteristicConfiguration else { continue }
            let handle = Self.le(attribute.handle)
            let written = send([ATTOpcode.writeRequest.rawValue] + handle + [0x01, 0x00])
            check(written == [ATTOpcode.writeResponse.rawValue], "CCCD write at \(attribute.handle) answered \(String(describing: written))")
            let readBack = send([ATTOpcode.readRequest.rawValue] + handle)
            check(readBack == [ATTOpcode.readResponse.rawValue, 0x01, 0x00], "CCCD at \(attribute.handle) reads back \(String(describing: readBack))")
            let wrong = send([ATTOpcode.writeRequest.rawValue] + handle + [0x01])
            check(wrong?[0] == ATTOpcode.errorResponse.rawValue && wrong?[4] == ATTErrorCode.invalidAttributeValueLength.rawValue,
                         "1-byte CCCD write answered \(String(describing: wrong))")
        }
        // Handle 0 and past the table.
        send([ATTOpcode.readRequest.rawValue, 0, 0])
        send([ATTOpcode.findInformationRequest.rawValue, 0, 0, 0xFF, 0xFF])
        if let first = table.attributes.first, let last = table.attributes.last {
            send([ATTOpcode.readMultipleRequest.rawValue] + Self.le(first.handle) + Self.le(last.handle))
        }
    }

    mutating func readWhole(_ attribute: ReplayAttributeTable.Attribute) {
        let handle = Self.le(attribute.handle)
        guard let first = send([ATTOpcode.readRequest.rawValue] + handle) else { fail("Read got no response") }
        let expected = try? server.source.value(of: attribute)
        guard first[0] == ATTOpcode.readResponse.rawValue else {
            if expected != nil { fail("Read of a readable attribute refused: \(first)") }
            return
        }
        var value = Array(first.dropFirst())
        var piece = value.count
        while piece == server.mtu - 1, value.count <= 0xFFFF, budget > 0 {
            guard let blob = send([ATTOpcode.readBlobRequest.rawValue] + handle + Self.le(UInt16(value.count))) else {
                fail("Read Blob got no response")
            }
            guard blob[0] == ATTOpcode.readBlobResponse.rawValue else { break }
            piece = blob.count - 1
            value += blob.dropFirst()
            if piece == 0 { break }
        }
        if budget > 0, let bytes = expected {
            check(value == bytes, "Read + Read Blob of 0x\(String(attribute.handle, radix: 16)) gave \(value.count) bytes, the server holds \(bytes.count)")
        }
    }
}

// MARK: The scheduler, on a virtual clock

let origin = ContinuousClock.now

func schedule(_ timeline: NotificationTimeline, server: ServedReplay, speed: ReplaySpeed) -> [NotificationScheduler.Decision] {
    var scheduler = NotificationScheduler(timeline: timeline, speed: speed)
    var now = origin
    scheduler.start(at: now)
    var decisions: [NotificationScheduler.Decision] = []
    var next = 0
    let limit = 6 * (timeline.count + 2)
    while decisions.count < limit {
        let decision = scheduler.decide(at: now) { handle, isIndication in
            guard let configuration = server.configuration(forValueHandle: handle) else { return nil }
            return isIndication ? configuration.indicationsEnabled : configuration.notificationsEnabled
        }
        decisions.append(decision)
        switch decision {
        case .send(let index):
            check(index == next, "sent push \(index), expected \(next)")
            scheduler.sent(index, at: now)
            if timeline.pushes[index].isIndication { scheduler.clientConfirmed() }
            next += 1
        case .skip(let index):
            check(index == next, "skipped push \(index), expected \(next)")
            scheduler.skipped(index)
            next += 1
        case .wait(let deadline):
            guard let deadline else { return decisions }
            check(deadline > now, "scheduler waits for an instant already past")
            now = deadline
        case .finished:
            check(next == timeline.count, "finished after \(next) of \(timeline.count) pushes")
            return decisions
        }
    }
    fail("scheduler made no progress in \(limit) decisions for \(timeline.count) pushes")
}

// MARK: One input

struct Run: Equatable {
    var records = 0, attPDUs = 0, skippedCount = 0
    var skipped: [TraceDamage] = []
    var stoppedAt: TraceDamage?
    var openError: TraceDamage?
    var sides: [ATTServerSide] = []
    var databases: [RecordedGATTDatabase] = []
    var pushes: [[NotificationTimeline.Push]] = []
    var pushValues: [[UInt8]] = []
    var transcript: [[UInt8]] = []
    var decisions: [NotificationScheduler.Decision] = []
}

func replay(_ input: UnsafeRawBufferPointer, keepGoing: Bool, clientMTU: UInt16?, speed: ReplaySpeed, records: RecordMap) -> Run {
    var run = Run()
    let loaded: Loaded
    switch load(input, keepGoing: keepGoing) {
    case .failure(let damage):
        checkDamage(damage, records: records, inputSize: input.count)
        check(damage.recordIndex == nil, "a header error names a record")
        run.openError = damage
        return run
    case .success(let value):
        loaded = value
    }
    let outcome = loaded.outcome
    checkOutcome(outcome, keepGoing: keepGoing, records: records, inputSize: input.count)
    (run.records, run.attPDUs, run.skippedCount, run.skipped, run.stoppedAt) =
        (outcome.records, outcome.attPDUs, outcome.skippedCount, outcome.skipped, outcome.stoppedAt)

    let recording = loaded.recording
    run.sides = recording.reconstructor.sides
    for side in run.sides {
        let database = recording.database(side)
        checkDatabase(database, table: ReplayAttributeTable(database))
        run.databases.append(database)
    }
    // As `--serve` does: the chosen side, its database and timeline, a session's server.
    guard let side = recording.side() else { return run }
    let database = recording.database(side)
    let timeline = recording.timeline(side)
    run.pushes.append(timeline.pushes)
    for push in timeline.pushes.prefix(64) { run.pushValues.append(Array(timeline.value(of: push))) }
    let server = ServedReplay(database: database, serverMTU: database.serverMTU ?? ATT.maximumMTU)
    checkDatabase(database, table: server.table)
    var client = ScriptedClient(server: server)
    client.run(clientMTU: clientMTU)
    // The trace's own client PDUs, sent again to the replaying server.
    for pdu in loaded.pdus where pdu.sender == side.server.other && pdu.connection == side.connection && client.budget > 0 {
        client.send(pdu.bytes)
    }
    run.transcript = client.transcript
    run.decisions = schedule(timeline, server: server, speed: speed)
    return run
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReplay(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    // The replay reader also takes pcapng and pcap (detected by magic); this harness's oracle
    // is the in-memory btsnoop reader, so it keeps to btsnoop. The containers are fuzzed by
    // fuzz/pcapng, whose oracle is the in-memory capture reader.
    switch TraceFileFormat.detect(prefix: input) {
    case .pcapng?, .pcap?: return 0
    default: break
    }
    let records = RecordMap(input)
    // The last byte picks the options: --keep-going, whether and what the client offers as
    // its MTU, and the replay speed.
    let options = size > 16 ? input[size - 1] : 0
    let keepGoing = options & 1 != 0
    let clientMTU: UInt16? = options & 2 == 0 ? nil : 23 + UInt16(options >> 2) * 8
    let speed: ReplaySpeed = options & 0x80 != 0 ? .max : .factor(options & 0x40 != 0 ? 0.25 : 1)
    let first = replay(input, keepGoing: keepGoing, clientMTU: clientMTU, speed: speed, records: records)
    let second = replay(input, keepGoing: keepGoing, clientMTU: clientMTU, speed: speed, records: records)
    if first != second {
        let fields: [(String, Bool)] = [
            ("outcome", first.records == second.records && first.attPDUs == second.attPDUs && first.skippedCount == second.skippedCount
                && first.skipped == second.skipped && first.stoppedAt == second.stoppedAt && first.openError == second.openError),
            ("sides", first.sides == second.sides), ("databases", first.databases == second.databases),
            ("pushes", first.pushes == second.pushes && first.pushValues == second.pushValues),
            ("transcript", first.transcript == second.transcript), ("scheduler", first.decisions == second.decisions),
        ]
        fail("replaying the same file twice gave different \(fields.filter { !$0.1 }.map(\.0)): \(first) vs \(second)")
    }
    return 0
}
