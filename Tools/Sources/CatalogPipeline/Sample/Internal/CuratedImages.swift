import Foundation

/// The recorded images of the embedded data (`provider/images/`): a small real picture for the
/// thumbnail of every game in the first six places of a category's first page, so `make snapshot`
/// bundles the first screen's thumbnails offline.
///
/// Each picture is a 64×48 mosaic in the game's colours, drawn byte by byte (``SyntheticImage``):
/// mostly JPEG, as the URLs say, and every tenth game a PNG, a GIF or a WebP. The index records each
/// as served with `image/jpeg`, the CDN's guess from the URL: the pipeline sniffs the bytes.
struct CuratedImages {
    let pool: CuratedPool
    let pages: [CuratedProviderFiles.Page]

    /// How many games of each category's first page have a recorded thumbnail.
    static let gamesPerCategory = 6

    /// The image bodies and `index.json`, paths relative to the data directory.
    func render() -> [(path: String, data: Data)] {
        var bodies: [String: Data] = [:]
        var index: [(String, PythonJSON)] = []
        var seen = Set<String>()
        let games = Dictionary(pool.games.map { (CuratedText(game: $0).imageURL("thumb"), $0) }, uniquingKeysWith: { a, _ in a })
        let firstPages = pages.filter { $0.edition == CuratedCatalogue.editions[0] && $0.offset == 0 }
        for page in firstPages {
            for item in page.items.prefix(Self.gamesPerCategory) {
                guard case .string(let raw)? = item["thumbnail"], let game = games[raw] else { continue }
                let url = raw.hasPrefix("//") ? "https:" + raw : raw
                guard seen.insert(url).inserted else { continue }
                let data = Self.picture(for: game)
                let digest = FileNaming.hexSHA256(data)
                bodies[digest] = data
                index.append((url, .object([("contentType", .string("image/jpeg")), ("file", .string(digest))])))
            }
        }
        index.sort { $0.0 < $1.0 }
        return bodies.sorted { $0.key < $1.key }.map { ("provider/images/\($0.key)", $0.value) }
            + [("provider/images/index.json", PythonJSON.object(index).fileData(sortKeys: true))]
    }

    /// The game's thumbnail: a diagonal mosaic between two colours taken from its id's SHA-256.
    static func picture(for game: CuratedGame) -> Data {
        let digest = Array(FileNaming.hexSHA256(Data("\(game.gid)/picture".utf8)).utf8)
        func byte(_ at: Int) -> Int { Int(digest[at] % 16) * 16 + Int(digest[at + 1] % 16) }
        let from = (byte(0), byte(2), byte(4))
        let to = (byte(6), byte(8), byte(10))
        func mix(_ step: Int, of steps: Int) -> SyntheticImage.RGB {
            func channel(_ a: Int, _ b: Int) -> UInt8 { UInt8(a + (b - a) * step / max(steps, 1)) }
            return (channel(from.0, to.0), channel(from.1, to.1), channel(from.2, to.2))
        }
        switch game.index % 10 {
        case 3: return SyntheticImage.png(width: 24, height: 18) { x, y in mix(x / 3 + y / 3, of: 13) }
        case 6:
            let palette = (0..<16).map { mix($0, of: 15) }
            return SyntheticImage.gif(width: 32, height: 24, palette: palette) { x, y in (x / 4 + y / 4) % 16 }
        case 9: return SyntheticImage.webp(width: 64, height: 48, colour: mix(1, of: 2))
        default: return SyntheticImage.jpeg(width: 64, height: 48) { column, row in mix(column + row, of: 13) }
        }
    }
}
