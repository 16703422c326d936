import BandLink
import Testing

/// The last line of both `bandsim serve` loops (the band's and the standard peers') comes from
/// one type, so the two serve modes say why they ended in the same words.
@Suite struct RunEndingTests {
    @Test(arguments: [
        (RunEnding.signal(15), "stopped by signal 15"),
        (.stopped, "stopped"),
        (.connections(2), "2 connection(s) served"),
        (.duration(.seconds(3600)), "simulated 3600 s"),
        (.duration(.milliseconds(90_500)), "simulated 90 s"),
    ])
    func saysWhyTheLoopEnded(ending: RunEnding, text: String) {
        #expect(ending.description == text)
    }
}
