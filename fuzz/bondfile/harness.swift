// libFuzzer harness for the Linux band's bond file (`STATE.bonds`, BandControllerLink's BondFile,
// read by `bandsim serve --hci-controller` at start-up): the input is a file's bytes.
//
// Properties checked on every input:
//  1. reading never traps; a refusal names the file, and its line is one the input has (0 only
//     for bytes that are not UTF-8);
//  2. what is read holds at most BondFile.capacity bonds, one per peer;
//  3. what is read writes back to a file that reads as the same bonds, and writing that again
//     gives the same bytes.
import BandControllerLink
import BandLEHost

let path = "/fuzz/band.state.bonds"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let bonds: [LEBond]
    switch BondFile.parse(input, path: path) {
    case .success(let read): bonds = read
    case .failure(let error):
        precondition(error.path == path, "a refusal names another file: \(error)")
        let lines = input.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        precondition(error.line >= 1 && error.line <= lines || error.line == 0 && String(validating: input, as: UTF8.self) == nil,
                     "a refusal names line \(error.line) of \(lines): \(error)")
        return 0
    }
    precondition(bonds.count <= BondFile.capacity, "\(bonds.count) bonds read, more than \(BondFile.capacity)")
    for (index, bond) in bonds.enumerated() {
        precondition(!bonds[..<index].contains { $0.peer == bond.peer }, "two bonds for \(bond.peer)")
    }
    let written = BondFile.encode(bonds)
    switch BondFile.parse(written, path: path) {
    case .success(let again):
        precondition(again == bonds, "the bonds written back read differently")
        precondition(BondFile.encode(again) == written, "writing the bonds again changes the file")
    case .failure(let error):
        preconditionFailure("the bonds written back cannot be read: \(error)")
    }
    return 0
}
