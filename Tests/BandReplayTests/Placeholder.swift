import Testing

@Test func bandReplayTestsBuild() {}
