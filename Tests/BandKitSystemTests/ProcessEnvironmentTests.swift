#if canImport(Glibc)
import Glibc
#endif
import BandKitSystem
import Testing

@Suite struct ProcessEnvironmentTests {
    @Test func readsTheProcessEnvironment() {
        setenv("BANDKIT_PROCESS_ENVIRONMENT_TEST", "a=b c", 1)
        defer { unsetenv("BANDKIT_PROCESS_ENVIRONMENT_TEST") }
        let environment = ProcessEnvironment.current()
        #expect(environment["BANDKIT_PROCESS_ENVIRONMENT_TEST"] == "a=b c")
        #expect(environment["PATH"] == getenv("PATH").map { String(cString: $0) })
    }
}
