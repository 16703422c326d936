import BandWire

/// A list response whose entries can be read by index without allocating.
public protocol ATTEntryList {
    associatedtype Entry
    var count: Int { get }
    func entry(at index: Int) -> Entry
}

extension ATTFindInformationResponse: ATTEntryList {}
extension ATTFindByTypeValueResponse: ATTEntryList {}
extension ATTReadByTypeResponse: ATTEntryList {}
extension ATTReadByGroupTypeResponse: ATTEntryList {}

/// The entries of a list response as a collection, decoded on the fly from the inline bytes.
public struct ATTEntries<List: ATTEntryList>: RandomAccessCollection {
    let list: List
    init(_ list: List) { self.list = list }

    public var startIndex: Int { 0 }
    public var endIndex: Int { list.count }
    public subscript(position: Int) -> List.Entry { list.entry(at: position) }
}
