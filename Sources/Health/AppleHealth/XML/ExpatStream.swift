internal import CExpat

/// Expat set up to read untrusted XML in pieces: elements and attributes only, no DOM.
///
/// Safety: the document's internal DTD (export.xml declares its elements and attributes in one)
/// is read, but any entity declaration stops the parse (no internal entity can expand, so no
/// "billion laughs"), external entities are refused, and the external DTD subset and parameter
/// entities are never loaded. Character data has no handler, so expat buffers no text: memory
/// is bounded by the longest single tag, not the file.
final class ExpatStream {
    typealias StartHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<XML_Char>?, UnsafeMutablePointer<UnsafePointer<XML_Char>?>?) -> Void
    typealias EndHandler = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<XML_Char>?) -> Void

    fileprivate let parser: XML_Parser
    /// Set by a handler that refused the document; reported instead of expat's "aborted".
    var refusal: AppleHealthError?

    /// `context` is passed to the handlers as their first argument; it must outlive the stream.
    /// `entity` must call ``refuse(_:_:)``: it is called for every entity declaration.
    init(context: UnsafeMutableRawPointer, start: StartHandler, end: EndHandler, entity: XML_EntityDeclHandler) {
        parser = XML_ParserCreate(nil)
        XML_SetUserData(parser, context)
        XML_SetElementHandler(parser, start, end)
        XML_SetParamEntityParsing(parser, XML_PARAM_ENTITY_PARSING_NEVER)
        XML_SetExternalEntityRefHandler(parser) { _, _, _, _, _ in Int32(XML_STATUS_ERROR.rawValue) }
        XML_SetEntityDeclHandler(parser, entity)
    }

    deinit { XML_ParserFree(parser) }

    /// Parses the next piece of the document (`final` on the last). Throws the first error.
    func feed(_ bytes: UnsafeRawBufferPointer, final: Bool) throws(AppleHealthError) {
        let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
        var offset = 0
        // XML_Parse takes an int length: feed at most 1 GiB at a time.
        repeat {
            let count = min(bytes.count - offset, 1 << 30)
            let last = final && offset + count == bytes.count
            let status = XML_Parse(parser, base.map { $0 + offset }, Int32(count), last ? 1 : 0)
            if status != XML_STATUS_OK {
                if let refusal { throw refusal }
                let code = XML_GetErrorCode(parser)
                let message = String(cString: XML_ErrorString(code))
                throw AppleHealthError(.malformedXML, place: place, "malformed XML: \(message)")
            }
            offset += count
        } while offset < bytes.count
    }

    /// Stops the parse from inside a handler, with the error ``feed(_:final:)`` throws.
    func refuse(_ error: AppleHealthError) {
        if refusal == nil { refusal = error }
        XML_StopParser(parser, 0)
    }

    func refuse(_ kind: AppleHealthError.Kind, _ message: String) {
        refuse(AppleHealthError(kind, place: place, message))
    }

    /// `line L, column C` of the event being handled (or of the error), 1-based.
    var place: String {
        "line \(XML_GetCurrentLineNumber(parser)), column \(XML_GetCurrentColumnNumber(parser) + 1)"
    }

    var line: Int { Int(XML_GetCurrentLineNumber(parser)) }
}


extension ExpatStream {
    /// Bytes of the document consumed up to the last parse event (see expat's XML_GetCurrentByteIndex).
    var byteIndex: Int { Int(XML_GetCurrentByteIndex(parser)) }
}
