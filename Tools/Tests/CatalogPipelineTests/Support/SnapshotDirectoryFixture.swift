@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
@_spi(CatalogTools) import Gzip

/// A small, valid snapshot directory (a manifest, a category list and a page of games, written with
/// ``CatalogCoding`` and ``CanonicalJSON`` and gzip as the pipeline writes them), with a hook to edit one file's JSON first.
///
/// Sizes in the manifest are those of the files as finally written, so an edited file fails the
/// reader's content checks, not its size checks.
enum SnapshotDirectoryFixture {
    /// A file of the directory.
    enum File: String, Sendable {
        case manifest, categories, page
    }

    static let edition = try! Edition(id: "en-iPhone")
    static let generatedAt = Date(timeIntervalSince1970: 1_795_000_000)
    static let categoriesPath = "en-iPhone/categories.json.gz"
    static let pagePath = "en-iPhone/games/slots-0123456789/0.json.gz"

    static let games = [
        Game(
            id: "34795", name: "Lara Jones", slug: "lara-jones",
            launchUrl: "https://launch.example.com/Loader/34795?x=1",
            thumbnail: "https://static.example.com/c/34795.jpg",
            backgroundImageUrl: "https://static.example.com/b/34795.jpg",
            description: "Cleopatra’s treasure, in 5 reels.", hasFunMode: true, platforms: [.android, .iPhone],
            popularity: 97.5, isNew: true,
            vendor: Vendor(id: "RGS_Matrix", name: "RGS Matrix", logo: "https://static.example.com/v.png"),
            tags: ["Free Spins", "Égypte"], rtp: 0.9646, restrictedTerritories: ["FR", "CA-ON"]),
        Game(
            id: "2", name: "Blackjack", slug: "blackjack", launchUrl: "https://launch.example.com:8443/Loader/2",
            thumbnail: "https://static.example.com/c/2.jpg"),
        Game(
            id: "3", name: "Roulette", slug: "roulette", launchUrl: "https://launch.example.com/Loader/3",
            thumbnail: "https://static.example.com/c/3.jpg", vendor: Vendor(id: "NetEnt", name: "NetEnt")),
    ]

    /// An edit of one file: its JSON is decoded into Foundation objects, changed, and encoded again.
    typealias Edit = (file: File, change: (inout [String: Any]) throws -> Void)

    /// Writes the directory into `directory`: every file as ``CatalogCoding`` encodes it, but the one
    /// `edit` changes.
    ///
    /// - Returns: The URLs of the manifest, the category list and the page.
    @discardableResult
    static func write(to directory: URL, edit: Edit? = nil) throws -> [File: URL] {
        let categoryList = CategoryList(items: [
            Category(id: "SLOTS", name: "Slots", href: "https://api.example.com/categories/SLOTS", gamesTotal: 3),
            Category(id: "LIVE", name: "Live Casino", gamesTotal: 12),
        ])
        let page = GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 3, items: games)
        let categoriesKey = SnapshotKey.categories(edition)
        let pageKey = SnapshotKey.gamesPage(edition, categoryId: "SLOTS", offset: 0)

        let categories = try packed(
            Snapshot(key: categoriesKey, contentHash: hash("1"), generatedAt: generatedAt, payload: categoryList),
            as: .categories, edit: edit)
        let games = try packed(
            Snapshot(key: pageKey, contentHash: hash("2"), generatedAt: generatedAt, payload: page),
            as: .page, edit: edit)
        let files = [
            entry(categoriesPath, key: categoriesKey, count: 2, total: 2, packed: categories, hash: hash("1")),
            entry(pagePath, key: pageKey, count: 3, total: 3, packed: games, hash: hash("2")),
        ]
        let manifest = Manifest(
            generator: .init(name: "catalog", version: "test"), generatedAt: generatedAt, source: "fixture",
            contentHash: Manifest.contentHash(of: files, images: nil), pageSize: 10, defaultEdition: edition,
            editions: [edition], files: files)
        let manifestJSON = try edited(CatalogCoding.prettyEncoder().encode(manifest), as: .manifest, edit: edit)

        let urls: [File: URL] = [
            .manifest: directory.appendingPathComponent(Manifest.fileName),
            .categories: directory.appendingPathComponent(categoriesPath),
            .page: directory.appendingPathComponent(pagePath),
        ]
        for (file, data) in [(File.manifest, manifestJSON), (.categories, categories.gzip), (.page, games.gzip)] {
            let url = urls[file]!
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        return urls
    }

    /// Reads the directory as an app would, every file: `nil` when the reader accepts all, else its error.
    static func readerError(in directory: URL, limits: SnapshotLimits = .default) -> (any Error)? {
        let reader = SnapshotReader(directory: directory, limits: limits)
        do {
            let manifest = try reader.manifest()
            for entry in manifest.files {
                switch entry.kind {
                case .categories: _ = try reader.categories(of: entry, in: manifest)
                case .gamesPage: _ = try reader.gamesPage(of: entry, in: manifest)
                }
            }
            return nil
        } catch {
            return error
        }
    }

    /// `sha256:` and 64 hex digits made of `digit`.
    static func hash(_ digit: Character) -> String {
        "sha256:" + String(repeating: digit, count: 64)
    }

    private static func packed<Payload>(
        _ snapshot: Snapshot<Payload>, as file: File, edit: Edit?
    ) throws -> (gzip: Data, inflated: Int) {
        let json = try edited(CanonicalJSON.encode(snapshot), as: file, edit: edit)
        return (try Gzip.compress(json), json.count)
    }

    /// `json` changed by `edit` when it is for `file`, else unchanged.
    private static func edited(_ json: Data, as file: File, edit: Edit?) throws -> Data {
        guard let edit, edit.file == file else { return json }
        var object = try JSONSerialization.jsonObject(with: json) as! [String: Any]
        try edit.change(&object)
        let json = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        // Canonical when it can be, so the edit is what a reader finds wrong.
        return file == .manifest ? json : (try? CanonicalJSON.canonicalized(json)) ?? json
    }

    private static func entry(
        _ path: String, key: SnapshotKey, count: Int, total: Int, packed: (gzip: Data, inflated: Int), hash: String
    ) -> Manifest.Entry {
        Manifest.Entry(
            path: path, key: key, count: count, total: total, compressedBytes: packed.gzip.count,
            uncompressedBytes: packed.inflated, sha256: FileNaming.hexSHA256(packed.gzip), contentHash: hash)
    }
}
