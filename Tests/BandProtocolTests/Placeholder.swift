import Testing

@Test func BandProtocolTestsBuilds() {}
