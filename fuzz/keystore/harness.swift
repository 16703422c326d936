// libFuzzer harness for the reader's keystore file (`keys.json`, BandReader's Keystore): the
// input is a file's bytes.
//
// Properties checked on every input:
//  1. decoding never traps; a refusal is a KeystoreError that names the file;
//  2. what decodes re-encodes, and the encoding is a fixed point after one normalisation
//     (times to whole seconds, hex to lower case): encode(decode(encode(bands))) is
//     byte-identical to encode(bands), and decodes to the same bands;
//  3. every decoded band has a non-empty key and the bands come out ordered by address;
//  4. a decoded band's person (band pair --person) is a name a person can have: no control
//     characters reach the terminal that prints it.
import BandReader
import Foundation
import HealthStore

let path = "/fuzz/keys.json"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = Data(UnsafeBufferPointer(start: data, count: size))
    let bands: [PairedBand]
    do {
        bands = try Keystore.decode(input, path: path)
    } catch {
        precondition(error.path == path, "a refusal names another file: \(error)")
        return 0
    }
    precondition(bands.allSatisfy { !$0.key.isEmpty }, "a band without a key was accepted")
    precondition(zip(bands, bands.dropFirst()).allSatisfy { $0.address <= $1.address }, "bands not ordered by address")
    precondition(bands.allSatisfy { $0.person.map { Person.problem(withName: $0) == nil } ?? true }, "an invalid person's name was accepted")
    let once: Data
    let twice: Data
    do {
        once = try Keystore.encode(bands, path: path)
        let normalised = try Keystore.decode(once, path: path)
        twice = try Keystore.encode(normalised, path: path)
        let again = try Keystore.decode(twice, path: path)
        precondition(again == normalised, "the normalised keystore does not decode to itself")
    } catch {
        preconditionFailure("a decoded keystore does not survive re-encoding: \(error)")
    }
    precondition(once == twice, "re-encoding is not a fixed point")
    return 0
}
