import Testing

@Test func EndToEndTestsBuilds() {}
