@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import NIOConcurrencyHelpers
import Testing

/// The app and its widget at once: this process installs 50 generations in a row, as the app's
/// updater does, while `catalog inspect-cache --shared` (a ``SharedCatalogReader`` in a child
/// process, made once per run as a widget makes one per timeline) reads every page and prints its
/// report, again and again. Replaced generations are removed during the run (a 4 s retention), so
/// the readers race their removal too.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SharedCatalogTwoProcessTests {
    static let generations = 50
    /// The reader waits a random 0...10 ms before each read, as a widget drawing between reads: a
    /// pass then spans installs, and a generation removed too early would be caught half-read.
    static let pause = 10

    /// What a source holds when read whole: its files' `key=contentHash` lines, sorted, and the tag
    /// every game name carries (`nil` for the bundle's untagged names).
    struct Source: Sendable {
        var name: String
        var contentHash: String
        var lines: [String]
        var tag: Int?
    }

    @Test func aWidgetReadingWhileTheAppInstalls50GenerationsReadsOnlyWholeOnes() async throws {
        try await PublishedSetFixture.run(readWhileInstalling)
    }

    func readWhileInstalling(_ fixture: PublishedSetFixture) async throws {
        let binary = SnapshotUpdaterKillTests.catalogBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build catalog first")
        // What each source holds, by its manifest's content hash (the report's `snapshot.contentHash`)
        var expected = try [Self.source(fixture.bundle.directory, name: "bundle", tag: nil)]
        let updater = try fixture.launch {
            SharedCatalogReaderTests.patient(&$0)
            $0.retiredGenerationRetention = 4
        }
        let arguments = [
            "inspect-cache", "--shared", fixture.support.path, "--bundle", fixture.bundle.directory.path,
            "--unknown-territory-policy", "showAll", "--json", "--pause-milliseconds", "\(Self.pause)", "--quiet",
        ]
        let stop = NIOLockedValueBox(false)
        defer { stop.withLockedValue { $0 = true } }
        let readers = Task {
            var reports: [String] = []
            while !stop.withLockedValue({ $0 }) { reports.append(try await Self.run(binary, arguments)) }
            return reports
        }
        // When the app installs 50 generations, each renaming every game, at random short intervals
        let started = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        for version in 1...Self.generations {
            try fixture.publish(fixture.taggedCatalog(version))
            guard case .installed(let installation) = try await updater.checkForUpdate() else {
                Issue.record("version \(version) was not installed")
                break
            }
            expected.append(try Self.source(installation.directory, name: "shared version \(version)", tag: version))
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...20, using: &generator)))
        }
        let installing = ContinuousClock.now - started
        stop.withLockedValue { $0 = true }
        let reports = try await readers.value
        // Then every run exited by itself, and read one source whole: all its files, with the content
        // of that source alone
        let sources = Dictionary(expected.map { ($0.contentHash, $0) }, uniquingKeysWith: { first, _ in first })
        var passes: [String: Int] = [:]
        var broken: [String] = []
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for output in reports {
            guard let report = try? decoder.decode(CacheInspection.self, from: Data(output.utf8)) else {
                broken.append("not a report: \(output.prefix(200))")
                continue
            }
            guard let source = report.snapshot.flatMap({ sources[$0.contentHash] }) else {
                broken.append("a snapshot no source holds: \(report.snapshot?.contentHash ?? "none")")
                continue
            }
            let lines = Self.lines(report)
            guard lines == source.lines else {
                broken.append(
                    "\(source.name): \(lines.count) files read, \(Set(lines).intersection(source.lines).count) of its \(source.lines.count)"
                )
                continue
            }
            guard Self.namesCarry(source.tag, in: report) else {
                broken.append("\(source.name): a game's name is another source's")
                continue
            }
            passes[source.name, default: 0] += 1
        }
        let shared = passes.filter { $0.key != "bundle" }
        print(
            "two processes: \(Self.generations) generations installed in \(installing); the readers made "
                + "\(reports.count) passes: \(shared.values.reduce(0, +)) on \(shared.count) shared versions, "
                + "\(passes["bundle"] ?? 0) on the bundle, \(broken.count) not whole; "
                + "on disk after: \(fixture.generationNames().count) generations")
        let notWhole = broken.count
        #expect(notWhole == 0, "passes that were not one whole source: \(broken.prefix(3))")
        #expect(shared.count >= 5, "the readers read too few generations to have raced the installs")
        #expect(fixture.generationNames().count <= 17, "the current generation and the 16 last replaced at most")
    }

    /// One `catalog` run's standard output; it must exit 0 within a minute.
    static func run(_ binary: URL, _ arguments: [String]) async throws -> String {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = OutputLines(process)
        try process.run()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning || !output.output.isClosed, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        if process.isRunning { process.terminate() }
        try #require(process.terminationReason == .exit && process.terminationStatus == 0, "\(arguments)")
        return output.output.text
    }

    /// The snapshot in `directory` read whole, unfiltered.
    static func source(_ directory: URL, name: String, tag: Int?) throws -> Source {
        let manifest = try SnapshotReader(directory: directory).manifest()
        return Source(
            name: name, contentHash: manifest.contentHash,
            lines: manifest.files.map { "\($0.key)=\($0.contentHash)" }.sorted(), tag: tag)
    }

    /// The report's keys as `key=contentHash` lines, sorted, for a global key's snapshot key.
    static func lines(_ report: CacheInspection) -> [String] {
        report.entries.map { "\($0.key.dropFirst("global/".count))=\($0.contentHash ?? "none")" }.sorted()
    }

    /// Whether every game the report lists carries `tag` (" v<tag>" at the end of its name), or
    /// none does when `tag` is `nil`.
    static func namesCarry(_ tag: Int?, in report: CacheInspection) -> Bool {
        let names = report.entries.flatMap { $0.listing ?? [] }.filter { $0.thumbnail != nil }.map(\.name)
        guard !names.isEmpty else { return false }
        return names.allSatisfy { name in
            let suffix = name.range(of: " v", options: .backwards).flatMap { Int(name[$0.upperBound...]) }
            return suffix == tag
        }
    }
}

extension PublishedSetFixture {
    /// The bundle's catalogue with every game's name tagged with `version`: every page file differs.
    func taggedCatalog(_ version: Int) -> Catalog {
        var catalog = bundle.catalog
        for edition in catalog.editions.indices {
            for page in catalog.editions[edition].pages.indices {
                for item in catalog.editions[edition].pages[page].items.indices {
                    catalog.editions[edition].pages[page].items[item].name += " v\(version)"
                }
            }
        }
        return catalog
    }
}
