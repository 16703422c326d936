// bandkit-downstream: BandKit used from another package, through its products' public API.
//
//   bandkit-downstream trace TRACE
//       every ATT PDU of a btsnoop trace, one tab-separated line each (BandTrace)
//   bandkit-downstream sync SOCKET STORE KEYSTORE
//       pairs with the simulated band on SOCKET and syncs its history into STORE (BandHost)
//   bandkit-downstream stats STORE
//       writes overlapping samples from two sources into STORE and prints the merged
//       statistics (HealthStore)
//
// Exit status: 0 done, 1 failure (the reason on stderr), 64 usage.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: bandkit-downstream trace TRACE | sync SOCKET STORE KEYSTORE | stats STORE"

func fail(_ message: String, status: Int32 = 1) -> Never {
    printError(message)
    exit(status)
}

do {
    switch (arguments.first, arguments.count) {
    case ("trace", 2): try TraceLines.print(path: arguments[1])
    case ("sync", 4): try ReaderRun.sync(socket: arguments[1], store: arguments[2], keystore: arguments[3])
    case ("stats", 2): try MergedStatistics.run(store: arguments[1])
    default: fail(usage, status: 64)
    }
} catch {
    fail("\(error)")
}
