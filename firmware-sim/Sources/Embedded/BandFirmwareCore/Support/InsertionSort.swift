extension Array {
    /// Sorts the array in place, keeping equal elements in their order (stable), by insertion.
    ///
    /// The band sorts at most a few dozen elements (a day plan's segments, a run's fault times),
    /// once at start-up; the standard library's `sort` is a merge sort whose specialisations cost
    /// the chip's image about 1.5 KB of flash per element type, this about a tenth of that. Same
    /// order as the standard library's stable sort for the same predicate.
    package mutating func insertionSort(by areInIncreasingOrder: (Element, Element) -> Bool) {
        var next = 1
        while next < count {
            let element = self[next]
            var slot = next
            while slot > 0, areInIncreasingOrder(element, self[slot - 1]) {
                self[slot] = self[slot - 1]
                slot -= 1
            }
            self[slot] = element
            next += 1
        }
    }
}
