import Testing

@Test func BandTraceTestsBuilds() {}
