import Foundation

/// The text of a curated game's records: image URLs, descriptions and the RTP in the form its
/// quirks ask for.
struct CuratedText {
    let game: CuratedGame
    private typealias Catalogue = CuratedCatalogue

    /// An image URL derived from the game id and the image's role. QUIRK: protocol-relative by
    /// default (`//static.example-cdn.com/...`), absolute https for games with `.httpsImages`.
    func imageURL(_ role: String, extension pathExtension: String = "jpg") -> String {
        let digest = FileNaming.hexSHA256(Data("\(game.gid)/\(role)".utf8)).uppercased()
        let scheme = game.quirks.contains(.httpsImages) ? "https:" : ""
        return "\(scheme)//\(Catalogue.cdn)/cms2/base/_casino/\(digest.prefix(1))/"
            + "\(digest.dropFirst().prefix(8)).\(pathExtension)"
    }

    /// The provider description in `language` (`en` or `fr`). QUIRK: HTML tags and entities for
    /// games with `.htmlDescription`.
    func description(language: String) -> String {
        if game.index == 0 { return Catalogue.laraDescription(language) }
        let vendor = Catalogue.vendor(game.vendor).name
        let kind = Catalogue.kindText[game.kind]!
        let feature = game.tags.count > 1 ? game.tags[1] : game.tags[0]
        let escape = { (text: String) in PythonText.xmlEscape(text) }
        if game.quirks.contains(.htmlDescription) {
            if language == "en" {
                return "<p><b>\(escape(game.name))</b> is a \(kind.english) by \(escape(vendor)).</p>"
                    + "<p>Features: \(escape(feature)) &amp; more &ndash; play now!</p>"
            }
            return "<p><b>\(escape(game.name))</b> est \(kind.french) de \(escape(vendor)).</p>"
                + "<p>Fonctionnalités&nbsp;: \(escape(feature)) &amp; plus encore&nbsp;!</p>"
        }
        if language == "en" { return "A \(kind.english) by \(vendor): \(feature)." }
        return "\(kind.french.prefix(1).uppercased())\(kind.french.dropFirst()) de \(vendor) : \(feature)."
    }

    /// The feed's description: HTML, in English for even pool indexes and in French for odd ones.
    var feedDescription: String {
        if game.index == 0 { return Catalogue.laraDescription("en") }
        let kind = Catalogue.kindText[game.kind]!
        if game.index % 2 == 0 {
            return "<p><b>\(PythonText.xmlEscape(game.name))</b> is a \(kind.english) &amp; a lobby favourite.</p>"
        }
        return "<p>\(PythonText.xmlEscape(game.name)) — \(kind.french) très apprécié(e).</p>"
    }

    /// QUIRK: `theoreticalPayOut` as a fraction (most), a percent number, a string, or absent (`nil`).
    var theoreticalPayOut: PythonJSON? {
        let quirks = game.quirks
        if quirks.contains(.rtpMissing) { return nil }
        if quirks.contains(.rtpPercent) { return .double(Double(game.rtpBasisPoints) / 100) }
        if quirks.contains(.rtpString) { return .string(PythonText.generalFormat(hundredths: game.rtpBasisPoints)) }
        return .double(Double(game.rtpBasisPoints) / 10_000)
    }
}
