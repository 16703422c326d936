import Testing

@Test func HealthStoreTestsBuilds() {}
