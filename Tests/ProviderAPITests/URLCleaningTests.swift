@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct URLCleaningTests {
    @Test(arguments: [
        ("//static.example.com/c/C1CD.jpg", "https://static.example.com/c/C1CD.jpg"),
        ("HTTPS://Static.example.com/x.jpg", "https://Static.example.com/x.jpg"),
        ("  https://a.example.com/x.jpg\n", "https://a.example.com/x.jpg"),
        ("https://a.example.com/my game.jpg", "https://a.example.com/my%20game.jpg"),
        ("https://a.example.com:8443/x", "https://a.example.com:8443/x"),
    ])
    func makesProviderURLsAbsoluteHTTPS(text: String, expected: String) {
        #expect(URLCleaning.https(text) == expected)
    }

    @Test(arguments: [
        "http://a.example.com/x", "/relative/x.jpg", "javascript:alert(1)", "", "https://", "//",
        "https://a.example.com:0/x",
    ])
    func refusesWhatCannotBeMadeHTTPS(text: String) {
        #expect(URLCleaning.https(text) == nil)
    }

    @Test func takesTheLastPathComponentOfALinkAsAName() {
        #expect(
            URLCleaning.lastPathComponent("https://api.example.com/v1/casino/tags/Free%20Spins?x=1") == "Free Spins")
        #expect(URLCleaning.lastPathComponent("https://api.example.com/v1/casino/vendors/266/") == "266")
    }
}
