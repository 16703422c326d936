import Testing

@Test func BandATTTestsBuilds() {}
