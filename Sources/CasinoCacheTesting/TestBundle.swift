@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation
@_spi(CatalogTools) import Gzip

/// A small bundled snapshot for a test, built from a few ``CasinoCatalog/CategoryList`` and
/// ``CasinoCatalog/GamesPage`` values and written in the snapshot format, so the cache's bundled
/// tier reads it as it reads the pipeline's `out/`: canonical JSON envelopes, gzip, a manifest with
/// every file's size, SHA-256 and content hash, and the index an app reads at launch.
///
/// ```swift
/// var bundle = TestBundle(generatedAt: clock.now)
/// bundle.add(CategoryList(items: [slots]), edition: edition)
/// bundle.add(GamesPage(categoryId: "SLOTS", offset: 0, limit: 10, total: 2, items: games), edition: edition)
/// let cache = CatalogCache(
///     upstream: upstream, cacheDirectory: nil, bundleDirectory: try bundle.write(to: directory.child("out")), clock: clock)
/// ```
public struct TestBundle: Sendable {
    /// When the bundled data was fetched: the manifest's and every envelope's `generatedAt`.
    public var generatedAt: Date
    /// The `limit` of every page: 10 by default. Pages must be cut with it.
    public var pageSize: Int
    /// The edition an app falls back to: the first edition added when `nil` (the default).
    public var defaultEdition: Edition?

    private var files: [SnapshotKey: CatalogFile] = [:]

    private enum CatalogFile: Sendable {
        case categories(CategoryList)
        case gamesPage(GamesPage)
    }

    public init(generatedAt: Date = Date(timeIntervalSince1970: 1_795_000_000), pageSize: Int = 10) {
        self.generatedAt = generatedAt
        self.pageSize = pageSize
    }

    /// Bundles `edition`'s lobby categories.
    public mutating func add(_ categories: CategoryList, edition: Edition) {
        files[.categories(edition)] = .categories(categories)
        if defaultEdition == nil { defaultEdition = edition }
    }

    /// Bundles one page of a category's games.
    public mutating func add(_ page: GamesPage, edition: Edition) {
        files[.gamesPage(edition, categoryId: page.categoryId, offset: page.offset)] = .gamesPage(page)
        if defaultEdition == nil { defaultEdition = edition }
    }

    /// Writes the snapshot into `directory` (created; it must not exist yet) and returns it.
    ///
    /// - Throws: ``Error`` when what was added breaks the snapshot contract (an edition without
    ///   categories, a page cut with another size, content breaking the schema's rules), naming it;
    ///   or the file system's error.
    @discardableResult
    public func write(to directory: URL) throws -> URL {
        let editions = Set(files.keys.map(\.edition)).sorted()
        for edition in editions where files[.categories(edition)] == nil {
            throw Error(message: "edition \(edition) has pages but no categories: add its CategoryList")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        var entries: [Manifest.Entry] = []
        for (key, file) in files {
            let path: String
            let json: Data
            let contentHash: String
            let count: Int
            let total: Int
            switch file {
            case .categories(let list):
                try check(list.violations().first, key)
                path = "\(key.edition)/categories.json.gz"
                contentHash = try CatalogCoding.contentHash(of: list)
                json = try CanonicalJSON.encode(
                    Snapshot(key: key, contentHash: contentHash, generatedAt: generatedAt, payload: list))
                (count, total) = (list.items.count, list.items.count)
            case .gamesPage(let page):
                try check(page.violations().first, key)
                guard page.limit == pageSize else {
                    throw Error(message: "\(key): cut with limit \(page.limit), the bundle's pageSize is \(pageSize)")
                }
                path = "\(key.edition)/games/\(Self.component(page.categoryId))/\(page.offset).json.gz"
                contentHash = try CatalogCoding.contentHash(of: page)
                json = try CanonicalJSON.encode(
                    Snapshot(key: key, contentHash: contentHash, generatedAt: generatedAt, payload: page))
                (count, total) = (page.items.count, page.total)
            }
            let packed = try Gzip.compress(json)
            let url = directory.appendingPathComponent(path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try packed.write(to: url)
            entries.append(
                Manifest.Entry(
                    path: path, key: key, count: count, total: total, compressedBytes: packed.count,
                    uncompressedBytes: json.count, sha256: SHA256Digest.hex(packed), contentHash: contentHash))
        }
        entries.sort { $0.path < $1.path }
        let manifest = Manifest(
            generator: .init(name: "CasinoCacheTesting", version: "1"), generatedAt: generatedAt, source: "TestBundle",
            contentHash: Manifest.contentHash(of: entries, images: nil), pageSize: pageSize,
            defaultEdition: defaultEdition ?? editions[0], editions: editions, files: entries)
        if let violation = manifest.violations(limits: .default).first {
            throw Error(message: "the manifest breaks the snapshot contract: \(violation)")
        }
        try CatalogCoding.prettyEncoder().encode(manifest).write(
            to: directory.appendingPathComponent(Manifest.fileName))
        try Self.writeIndex(of: manifest, into: directory)
        return directory
    }

    /// Writes the index of `manifest` (`SnapshotIndex`) into `directory`, as the pipeline
    /// does: for a snapshot directory a test builds or edits by hand.
    @_spi(CatalogTools) public static func writeIndex(of manifest: Manifest, into directory: URL) throws {
        for file in try SnapshotIndex.files(for: manifest) {
            let url = directory.appendingPathComponent(file.path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.data.write(to: url)
        }
    }

    /// Why a test bundle could not be written.
    public struct Error: Swift.Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private func check(_ violation: Violation?, _ key: SnapshotKey) throws {
        if let violation { throw Error(message: "\(key): \(violation)") }
    }

    /// A file name component for a category id: its letters and digits, then a hash of the whole
    /// id, so no id reaches the file system as given.
    private static func component(_ id: String) -> String {
        let readable = String(
            id.lowercased().unicodeScalars.filter { ("a"..."z").contains($0) || ("0"..."9").contains($0) }.prefix(40))
        return readable + "-" + SHA256Digest.hex(Data(id.utf8)).prefix(10)
    }
}
