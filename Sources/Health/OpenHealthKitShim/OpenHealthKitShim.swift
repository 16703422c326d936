// Apple's HealthKit where it exists, BandKit's OpenHealthKit elsewhere: code written for
// HealthKit imports this module instead and compiles on both (OpenCombine's shim pattern).
#if canImport(HealthKit)
@_exported import HealthKit
#else
@_exported import OpenHealthKit
#endif
