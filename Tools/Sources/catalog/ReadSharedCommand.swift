import ArgumentParser
@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation

struct ReadSharedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read-shared",
        abstract: "Read the lobby as an app's widget does: the shared over-the-air generation, else the bundle.",
        discussion: """
            Makes a SharedCatalogReader on --shared (the app's updater directory, in its App Group container) and
            --bundle (the extension's own snapshot), then reads every edition's categories and each category's pages
            until one is missing, never touching the network or writing a file. Prints one line per pass: the source
            (shared version N, or bundle), the pages read and a digest of their content hashes (sorted "key=hash"
            lines, hashed as CatalogCoding.contentHash), so two passes that read the same content print the same digest.
            With --passes 0, passes are made until --stop-file exists or --seconds pass.
            Exit status: 0 when every pass ended; 64 for bad arguments.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "The app's snapshot updater directory (the shared one).")
    var shared: String

    @Option(name: .long, help: "The extension's bundled snapshot (default: none).")
    var bundle: String?

    @Option(name: .long, help: "The app's cache directory, for the territory and withdrawals it saved (default: none).")
    var territoryDirectory: String?

    @Option(
        name: .long,
        help: "What is withheld while no territory is known: hideRestrictedAnywhere (the app's default) or showAll.")
    var unknownTerritoryPolicy = UnknownTerritoryPolicy.hideRestrictedAnywhere.rawValue

    @Option(name: .long, help: "How many passes to make; 0: until --stop-file exists or --seconds pass.")
    var passes = 1

    @Option(name: .long, help: "With --passes 0, stop once this file exists.")
    var stopFile: String?

    @Option(name: .long, help: "The longest the passes may take, in seconds.")
    var seconds = 600.0

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Wait a random 0...N ms before each read, as a widget drawing between reads (tests).", visibility: .hidden))
    var pauseMilliseconds = 0

    func validate() throws {
        guard (0...10_000).contains(pauseMilliseconds) else {
            throw ValidationError("--pause-milliseconds must be 0...10000, got \(pauseMilliseconds)")
        }
        guard passes >= 0 else { throw ValidationError("--passes must be 0 or more, got \(passes)") }
        guard passes > 0 || stopFile != nil else { throw ValidationError("--passes 0 needs --stop-file") }
        guard seconds.isFinite, seconds > 0 else { throw ValidationError("--seconds must be more than 0") }
        guard UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) != nil else {
            throw ValidationError(
                "--unknown-territory-policy must be one of \(UnknownTerritoryPolicy.allCases.map(\.rawValue)), got '\(unknownTerritoryPolicy)'"
            )
        }
    }

    func run() throws {
        let logger = global.makeLogger()
        var configuration = SharedCatalogReader.Configuration(
            sharedDirectory: URL(fileURLWithPath: shared), bundleDirectory: bundle.map { URL(fileURLWithPath: $0) })
        configuration.territoryDirectory = territoryDirectory.map { URL(fileURLWithPath: $0) }
        configuration.cache.unknownTerritoryPolicy =
            UnknownTerritoryPolicy(rawValue: unknownTerritoryPolicy) ?? .hideRestrictedAnywhere
        let deadline = Date().addingTimeInterval(seconds)
        var pass = 0
        while passes == 0 || pass < passes {
            if let stopFile, FileManager.default.fileExists(atPath: stopFile) { break }
            guard Date() < deadline else { break }
            pass += 1
            let reader = SharedCatalogReader(configuration: configuration, logger: logger)
            let read = try Self.readAll(reader) {
                if pauseMilliseconds > 0 { usleep(UInt32.random(in: 0...UInt32(pauseMilliseconds)) * 1000) }
            }
            let source =
                switch reader.source {
                case .shared(let version): "shared version \(version)"
                case .bundle: "bundle"
                case .none: "none"
                }
            say("pass \(pass): \(source), \(read.count) files, digest \(try Self.digest(of: read))")
        }
    }

    /// Every file the reader answers for: each edition's categories and each category's pages in
    /// order until one is missing, as `key=contentHash` lines.
    static func readAll(_ reader: SharedCatalogReader, pausing pause: () -> Void = {}) throws -> [String] {
        var lines: [String] = []
        for edition in reader.editions {
            pause()
            guard let categories = reader.categories(edition: edition).value else { continue }
            lines.append("\(SnapshotKey.categories(edition))=\(try CatalogCoding.contentHash(of: categories))")
            for category in categories.items {
                var offset = 0
                while true {
                    pause()
                    guard let page = reader.gamesPage(edition: edition, categoryId: category.id, offset: offset).value
                    else { break }
                    let key = SnapshotKey.gamesPage(edition, categoryId: category.id, offset: offset)
                    lines.append("\(key)=\(try CatalogCoding.contentHash(of: page))")
                    offset += page.limit
                    if page.limit < 1 || offset >= page.total { break }
                }
            }
        }
        return lines
    }

    /// The digest of `lines` whatever order they were read in.
    static func digest(of lines: [String]) throws -> String {
        try CatalogCoding.contentHash(of: lines.sorted())
    }
}
