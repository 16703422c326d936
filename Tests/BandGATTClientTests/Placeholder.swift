import Testing

@Test func BandGATTClientTestsBuilds() {}
