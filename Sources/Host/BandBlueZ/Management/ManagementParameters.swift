import BandWire

extension WireEncodable {
    /// A command's fixed-size parameter block as bytes (commands are small and sent rarely).
    func managementParameters(size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        out.withUnsafeMutableBytes { raw in
            var writer = ByteWriter(raw)
            encode(into: &writer)
        }
        return out
    }
}
