import Testing

@Test func BandGATTTestsBuilds() {}
