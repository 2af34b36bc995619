@_spi(CatalogTools) import ProviderAPI
import Testing

@Suite struct TextCleaningTests {
    @Test(arguments: [
        ("<p>Did you grow up playing <b>Tomb Raider</b>?</p>", "Did you grow up playing Tomb Raider?"),
        ("Fish &amp; Chips &lt;3 &#233;t&#xE9; &nbsp;!", "Fish & Chips <3 été !"),
        ("a<br>b<br/>c", "a b c"),
        ("<style>p{}</style>Text<script>alert(1)</script> end", "Text end"),
        ("unterminated <b", "unterminated"),
        ("&bogus; &#0; &", "&bogus; &#0; &"),
        ("  spaced \n\t out  ", "spaced out"),
    ])
    func convertsHTMLToPlainText(html: String, text: String) {
        #expect(TextCleaning.plainText(fromHTML: html) == text)
    }

    @Test func removesControlCharactersFromLines() {
        #expect(TextCleaning.line("A\u{0}B\u{7}C") == "A B C")
    }
}
