public import Foundation

/// The canonical JSON of the two payloads a cache entry holds, written field by field: the same
/// bytes as `CanonicalJSON/encode(_:)` (a test holds them to it), without `JSONEncoder` and the
/// transcoding pass after it, which took six times as long. The disk tier writes each entry this
/// way and hashes the same bytes, so an entry's content hash costs a SHA-256 and nothing more.
///
/// Members are written in the order canonical JSON sorts them (every key is ASCII, so byte order
/// is UTF-16 order); an optional that is `nil` is left out, as the synthesized `Encodable` does.
@_spi(CatalogTools) public enum CanonicalPayload {
    /// The canonical JSON of `page`.
    ///
    /// - Throws: `CanonicalJSONError` for a string that is not NFC, a number that is not finite,
    ///   or an integer a double cannot write exactly: what `CanonicalJSON/encode(_:)` refuses.
    public static func encode(_ page: GamesPage) throws(CanonicalJSONError) -> Data {
        var writer = Writer(capacity: 256 + page.items.count * 640)
        try writer.page(page)
        return Data(writer.bytes)
    }

    /// The canonical JSON of `list`.
    ///
    /// - Throws: `CanonicalJSONError`, as ``encode(_:)-(GamesPage)`` does.
    public static func encode(_ list: CategoryList) throws(CanonicalJSONError) -> Data {
        var writer = Writer(capacity: 32 + list.items.count * 160)
        try writer.categories(list)
        return Data(writer.bytes)
    }

    private struct Writer {
        var bytes: [UInt8] = []

        init(capacity: Int) {
            bytes.reserveCapacity(capacity)
        }

        mutating func page(_ page: GamesPage) throws(CanonicalJSONError) {
            raw(#"{"categoryId":"#)
            try string(page.categoryId)
            raw(#","count":"#)
            try integer(page.count)
            raw(#","items":["#)
            for (index, game) in page.items.enumerated() {
                if index > 0 { raw(",") }
                try self.game(game)
            }
            raw(#"],"limit":"#)
            try integer(page.limit)
            raw(#","offset":"#)
            try integer(page.offset)
            raw(#","total":"#)
            try integer(page.total)
            raw("}")
        }

        mutating func categories(_ list: CategoryList) throws(CanonicalJSONError) {
            raw(#"{"items":["#)
            for (index, category) in list.items.enumerated() {
                if index > 0 { raw(",") }
                raw(#"{"gamesTotal":"#)
                try integer(category.gamesTotal)
                if let href = category.href {
                    raw(#","href":"#)
                    try string(href)
                }
                raw(#","id":"#)
                try string(category.id)
                raw(#","name":"#)
                try string(category.name)
                raw("}")
            }
            raw("]}")
        }

        private mutating func game(_ game: Game) throws(CanonicalJSONError) {
            raw("{")
            // Optional members come first when present: each but the first after a comma.
            if let backgroundImageUrl = game.backgroundImageUrl {
                raw(#""backgroundImageUrl":"#)
                try string(backgroundImageUrl)
                raw(",")
            }
            if let description = game.description {
                raw(#""description":"#)
                try string(description)
                raw(",")
            }
            raw(#""hasAnonymousFunMode":"#)
            boolean(game.hasAnonymousFunMode)
            raw(#","hasFunMode":"#)
            boolean(game.hasFunMode)
            raw(#","id":"#)
            try string(game.id)
            raw(#","isNew":"#)
            boolean(game.isNew)
            raw(#","launchUrl":"#)
            try string(game.launchUrl)
            raw(#","name":"#)
            try string(game.name)
            raw(#","platforms":["#)
            for (index, platform) in game.platforms.enumerated() {
                if index > 0 { raw(",") }
                try string(platform.rawValue)
            }
            raw(#"],"popularity":"#)
            try number(game.popularity)
            raw(#","restrictedTerritories":["#)
            try strings(game.restrictedTerritories)
            raw("]")
            if let rtp = game.rtp {
                raw(#","rtp":"#)
                try number(rtp)
            }
            raw(#","slug":"#)
            try string(game.slug)
            raw(#","tags":["#)
            try strings(game.tags)
            raw(#"],"thumbnail":"#)
            try string(game.thumbnail)
            if let vendor = game.vendor {
                raw(#","vendor":{"id":"#)
                try string(vendor.id)
                if let logo = vendor.logo {
                    raw(#","logo":"#)
                    try string(logo)
                }
                raw(#","name":"#)
                try string(vendor.name)
                raw("}")
            }
            raw("}")
        }

        private mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        private mutating func raw(_ text: String) {
            bytes.append(contentsOf: text.utf8)
        }

        private mutating func boolean(_ value: Bool) {
            raw(value ? "true" : "false")
        }

        private mutating func strings(_ values: [String]) throws(CanonicalJSONError) {
            for (index, value) in values.enumerated() {
                if index > 0 { raw(",") }
                try string(value)
            }
        }

        /// An integer as canonical JSON writes it: its digits, when its double has the same ones.
        private mutating func integer(_ value: Int) throws(CanonicalJSONError) {
            let digits = String(value)
            if digits.utf8.count <= 15 {
                raw(digits)
                return
            }
            guard let text = CanonicalJSON.numberText(Double(value)), text == digits else {
                throw CanonicalJSONError(
                    .numberOutOfRange, at: bytes.count, "integer \(digits) has no exact canonical form")
            }
            raw(text)
        }

        private mutating func number(_ value: Double) throws(CanonicalJSONError) {
            guard let text = CanonicalJSON.numberText(value) else {
                throw CanonicalJSONError(.numberOutOfRange, at: bytes.count, "\(value) is not a finite number")
            }
            raw(text)
        }

        /// A string: `"` and `\` escaped, controls as `\b \f \n \r \t` or `\u00xx`, the rest as UTF-8;
        /// refused when it is not NFC.
        private mutating func string(_ text: String) throws(CanonicalJSONError) {
            bytes.append(UInt8(ascii: "\""))
            var mayBeDenormalized = false
            for byte in text.utf8 {
                // The lead byte of U+0300 and above: everything below is NFC whatever follows.
                if byte >= 0xCC { mayBeDenormalized = true }
                CanonicalJSON.appendInString(byte, to: &bytes)
            }
            if mayBeDenormalized
                && !text.unicodeScalars.elementsEqual(text.precomposedStringWithCanonicalMapping.unicodeScalars)
            {
                throw CanonicalJSONError(.notNFC, at: bytes.count, "a string is not in Unicode Normalization Form C")
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
