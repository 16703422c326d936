import Testing

@Test func BandLinkTestsBuilds() {}
