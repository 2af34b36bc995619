import CLibXML2

/// How this module drives libxml2.
enum LibXML2 {
    /// The parser's options. Deliberately absent: `XML_PARSE_NOENT` (substitutes
    /// entities, and reads local files for external ones even with `NONET`),
    /// `XML_PARSE_DTDLOAD`, `XML_PARSE_DTDATTR`, `XML_PARSE_DTDVALID` (load and apply DTDs)
    /// and `XML_PARSE_HUGE` (lifts the parser's own size and entity-expansion guards).
    static let parserOptions: Int32 = {
        let options = [
            XML_PARSE_NONET,  // never touch the network
            XML_PARSE_NOCDATA,  // CDATA sections arrive as text
            XML_PARSE_NOERROR,  // no error reports on stderr: the structured handler gets them
            XML_PARSE_NOWARNING,  // no warnings on stderr
        ]
        return Int32(options.reduce(0) { $0 | $1.rawValue })
    }()

    /// Initializes libxml2 once per process, before the first parser (its documented
    /// requirement for use from several threads); Swift runs the initializer exactly once.
    static let initialized: Void = xmlInitParser()
}
