@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Logging
@_spi(CatalogTools) import ProviderAPI

/// A logger that discards everything.
let quietLogger = Logger(label: "tests") { _ in SwiftLogNoOpLogHandler() }

let enIPhone = try! Edition(id: "en-iPhone")
let frIPhone = try! Edition(id: "fr-iPhone")

/// Builds recorded provider directories for tests, file by file.
struct RecordingBuilder {
    let layout: RecordingLayout
    var fetchedAt = Date(timeIntervalSince1970: 1_795_168_800)

    init(root: URL) {
        layout = RecordingLayout(root: root)
    }

    /// A valid game record.
    static func game(_ id: Int, name: String? = nil) -> ProviderGame {
        ProviderGame(
            id: .string(String(id)), slug: "game-\(id)", name: name ?? "Game \(id)",
            launchUrl: "https://launch.example.com/\(id)", thumbnail: "//static.example.com/\(id).jpg",
            hasFunMode: .string("1"), platform: .string("iPhone,Android"), popularity: .double(Double(1000 - id)),
            theoreticalPayOut: .string("96.5"))
    }

    func writeMetadata(editions: [Edition]) throws {
        let metadata = RecordingLayout.Metadata(fetchedAt: fetchedAt, baseURL: nil, editions: editions, pageLimit: 10)
        try write(CatalogCoding.prettyEncoder().encode(metadata), to: layout.metadataFile)
    }

    func writeCategories(_ categories: [(id: String, name: String, total: Int)], edition: Edition = enIPhone) throws {
        let items = categories.map {
            ProviderCategory(
                id: .string($0.id), name: $0.name, games: ProviderCollection(count: 0, total: $0.total, items: []))
        }
        try write(
            JSONEncoder().encode(ProviderCollection(count: items.count, total: items.count, items: items)),
            to: layout.categoriesFile(for: edition))
    }

    func writePage(
        _ games: [ProviderGame], category: String, offset: Int, total: Int, edition: Edition = enIPhone
    ) throws {
        try write(
            JSONEncoder().encode(ProviderCollection(count: games.count, total: total, items: games)),
            to: layout.gamesPageFile(for: edition, categoryId: category, offset: offset))
    }

    func writeRawPage(_ text: String, category: String, offset: Int, edition: Edition = enIPhone) throws {
        try write(Data(text.utf8), to: layout.gamesPageFile(for: edition, categoryId: category, offset: offset))
    }

    /// A category of `count` valid games written as pages of 10 (ids from `firstID`).
    func writeCategory(_ id: String, games count: Int, firstID: Int = 1, edition: Edition = enIPhone) throws {
        for offset in stride(from: 0, to: count, by: 10) {
            let games = (offset..<min(offset + 10, count)).map { Self.game(firstID + $0) }
            try writePage(games, category: id, offset: offset, total: count, edition: edition)
        }
    }

    private func write(_ data: Data, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }
}

/// The repository's root, for tests over the embedded data in `data/`.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Every regular file under `directory`, relative path → bytes.
func fileTree(_ directory: URL) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory.path)
    while let path = enumerator?.nextObject() as? String {
        var isDirectory: ObjCBool = false
        let url = directory.appendingPathComponent(path)
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            result[path] = try Data(contentsOf: url)
        }
    }
    return result
}

/// Normalizes a recording and writes it into `out`.
@discardableResult
func buildSnapshot(from recording: URL, to out: URL, configuration: PipelineConfiguration = .default) throws -> Manifest
{
    let source = try RecordedProviderSource(directory: recording, limits: configuration.limits)
    let catalog = try Normalizer(configuration: configuration, logger: quietLogger).normalize(source).catalog
    return try SnapshotWriter(logger: quietLogger).write(catalog, to: out)
}

/// Runs a command and returns its exit status.
func run(_ arguments: [String]) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
