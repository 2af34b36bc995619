@_spi(CatalogTools) import CasinoCatalog
import Testing

@Suite struct CatalogRulesTests {
    @Test func aURLAcceptsEveryPrintableASCIIByteButTheUnsafeOnesInItsPath() {
        // Every ASCII byte, and one beyond ASCII, after a valid start: the bitmap of URL bytes
        // against the rule written out.
        let unsafe = Set(" \"<>\\^`{|}".utf8)
        for byte in UInt8(0)...127 {
            let isAllowed = byte > 0x20 && byte < 0x7F && !unsafe.contains(byte)
            let url = "https://a.example/x" + String(UnicodeScalar(byte))
            #expect(CatalogRules.isAbsoluteHTTPS(url) == isAllowed, "byte \(byte)")
        }
        #expect(!CatalogRules.isAbsoluteHTTPS("https://a.example/é"))
    }

    @Test(arguments: [
        "https://static.example.com/c/C1CD.jpg", "https://launch.example.com:8443/Loader/Start/4093?x=1#top",
        "https://a.b/%20x",
    ])
    func acceptsAbsoluteHTTPSURLs(url: String) {
        #expect(CatalogRules.isAbsoluteHTTPS(url))
    }

    @Test(arguments: [
        "", "http://static.example.com/x.jpg", "//static.example.com/x.jpg", "/relative/x.jpg", "javascript:alert(1)",
        "https://", "https:///path", "https://exa mple.com/", "https://example.com/a b", "https://user@evil.com/",
        "https://example.com:99999/", "https://example.com/\u{0}", "https://ex<ample.com/", "garbage", "ftp://x.com/",
        "https://-bad.com/", "https://exämple.com/",
    ])
    func rejectsEverythingElse(url: String) {
        #expect(!CatalogRules.isAbsoluteHTTPS(url))
    }

    @Test(arguments: [
        "en-iPhone/categories.json.gz", "en-iPhone/games/videoslots-3f2a9c1b0d/0.json.gz", "manifest.json",
        ".hidden", "a/.../b", "a/..b", String(repeating: "x", count: CatalogRules.maxPathComponentLength),
    ])
    func acceptsSafeRelativePaths(path: String) {
        #expect(CatalogRules.isSafeRelativePath(path))
    }

    @Test(arguments: [
        "", "/etc/passwd", "../x", "a/../b", "a//b", "a/./b", "a\\b", "a/b\u{0}", "a/🎰", "a/b/", "a b", ".", "..",
        "a/..", "a/.", "/", String(repeating: "x", count: CatalogRules.maxPathComponentLength + 1),
    ])
    func rejectsPathsThatCouldEscape(path: String) {
        #expect(!CatalogRules.isSafeRelativePath(path))
    }

    @Test(arguments: [
        ("FR", true), ("CA-ON", true), ("GB-ENG", true), ("fr", false), ("FRA", false), ("CA-", false), ("", false),
        ("US-1", true), ("FR-75C", true), ("F", false), ("F1", false), ("CA-ONTA", false), ("CA-on", false),
        ("CA_ON", false), ("CA-O-N", false), ("-CA", false), ("ÉS", false), ("CA-\u{301}", false),
    ])
    func recognizesTerritoryCodes(code: String, valid: Bool) {
        #expect(CatalogRules.isTerritoryCode(code) == valid)
    }
}
