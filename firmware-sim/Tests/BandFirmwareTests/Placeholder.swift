import Testing

@Test func bandFirmwareTestsBuild() {}
