import Testing

@Test func BandReaderTestsBuilds() {}
