@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// The app and its widget at once: this process installs 50 generations in a row, as the app's
/// updater does, while `catalog read-shared` (a ``SharedCatalogReader`` in a child process, as a
/// widget makes one per timeline) reads every page in a loop. Replaced generations are removed
/// during the run (a 4 s retention), so the reader races their removal too.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct SharedCatalogTwoProcessTests {
    static let generations = 50
    /// The reader waits a random 0...10 ms before each read, as a widget drawing between reads: a
    /// pass then spans installs, and a generation removed too early would be caught half-read.
    static let pause = 10

    @Test func aWidgetReadingWhileTheAppInstalls50GenerationsReadsOnlyWholeOnes() async throws {
        try await PublishedSetFixture.run(readWhileInstalling)
    }

    func readWhileInstalling(_ fixture: PublishedSetFixture) async throws {
        let binary = SnapshotUpdaterKillTests.catalogBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build catalog first")
        // What each source reads when it is read whole: the digest `catalog read-shared` prints
        var expected = ["bundle": try Self.digest(fixture.bundle.directory)]
        let updater = try fixture.launch {
            SharedCatalogReaderTests.patient(&$0)
            $0.retiredGenerationRetention = 4
        }
        let stop = fixture.directory.child("stop")
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "read-shared", "--shared", fixture.support.path, "--bundle", fixture.bundle.directory.path,
            "--unknown-territory-policy", "showAll", "--passes", "0", "--stop-file", stop.path, "--seconds", "240",
            "--pause-milliseconds", "\(Self.pause)", "--quiet",
        ]
        let output = OutputLines(process)
        try process.run()
        // When the app installs 50 generations, each renaming every game, at random short intervals
        let started = ContinuousClock.now
        var generator = SystemRandomNumberGenerator()
        for version in 1...Self.generations {
            try fixture.publish(fixture.taggedCatalog(version))
            guard case .installed(let installation) = try await updater.checkForUpdate() else {
                Issue.record("version \(version) was not installed")
                break
            }
            expected["shared version \(version)"] = try Self.digest(installation.directory)
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...20, using: &generator)))
        }
        let installing = ContinuousClock.now - started
        try Data().write(to: stop)
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { process.terminate() }
        while !output.output.isClosed, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        // Then the reader exited by itself, and every pass read one source whole: all its files,
        // with the content of that source alone
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        var passes: [String: Int] = [:]
        var broken: [String] = []
        for line in output.output.text.split(separator: "\n").map(String.init) {
            // "pass 12: shared version 7, 34 files, digest sha256:…"
            guard let colon = line.firstIndex(of: ":"), let comma = line.firstIndex(of: ","),
                let digest = line.components(separatedBy: "digest ").last
            else {
                broken.append(line)
                continue
            }
            let source = String(line[line.index(colon, offsetBy: 2)..<comma])
            if expected[source] == digest { passes[source, default: 0] += 1 } else { broken.append(line) }
        }
        let shared = passes.filter { $0.key != "bundle" }
        print(
            "two processes: \(Self.generations) generations installed in \(installing); the reader made "
                + "\(passes.values.reduce(0, +) + broken.count) passes: \(shared.values.reduce(0, +)) on "
                + "\(shared.count) shared versions, \(passes["bundle"] ?? 0) on its bundle, \(broken.count) not whole; "
                + "on disk after: \(fixture.generationNames().count) generations")
        #expect(broken.isEmpty, "passes that were not one whole source: \(broken.prefix(5))")
        #expect(shared.count >= 5, "the reader read too few generations to have raced the installs")
        #expect(fixture.generationNames().count <= 17, "the current generation and the 16 last replaced at most")
    }

    /// The digest `catalog read-shared` prints for a whole, unfiltered read of the snapshot in
    /// `directory`: its files' sorted `key=contentHash` lines, hashed.
    static func digest(_ directory: URL) throws -> String {
        let lines = try SnapshotReader(directory: directory).manifest().files.map { "\($0.key)=\($0.contentHash)" }
        return try CatalogCoding.contentHash(of: lines.sorted())
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
