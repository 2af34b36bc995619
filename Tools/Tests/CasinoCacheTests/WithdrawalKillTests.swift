@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `kill -9` while the withdrawal list is being saved: `catalog update --cache` (the app's
/// updater and cache in a child process) installs each round's set and applies its large list, and
/// is killed at a random point of its run. The next launch holds the list before or the list
/// after, never neither and never an older one.
@Suite(.timeLimit(.minutes(5)))
struct WithdrawalKillTests {
    /// Games in each round's list: enough that saving it (twice, synced) is a good part of the run.
    static let listSize = 20_000
    static let rounds = 12

    /// Round `round`'s complete list: the same large list with that round's own game.
    static func list(_ round: Int, withdrawing game: String) -> WithdrawalList {
        WithdrawalList(
            sequence: round,
            games: [Withdrawal(id: game), Withdrawal(id: "round-\(round)")]
                + (0..<listSize).map { Withdrawal(id: "withdrawn-\($0)", territories: $0 % 3 == 0 ? ["GB"] : []) })
    }

    /// The temporary copies of list files in `directory`: one appears as a file's write begins, and
    /// stays when the write is killed.
    static func listTemporaries(_ directory: URL) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return Set(names.filter { $0.contains("Withdrawals") && $0.hasSuffix(".tmp") })
    }

    @Test func aKillWhileTheListIsSavedLeavesTheOldListOrTheNewOne() async throws {
        try await PublishedSetFixture.run(killWhileSaving)
    }

    func killWhileSaving(_ fixture: PublishedSetFixture) async throws {
        let binary = SnapshotUpdaterKillTests.catalogBinary
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build catalog first")
        let cacheDirectory = fixture.directory.child("cache")
        let game = fixture.bundle.catalog.editions[0].pages[0].items[0].id
        var generator = SystemRandomNumberGenerator()
        var held = 0
        var saving: Duration = .zero
        var (killedWhileWriting, completed) = (0, 0)
        for round in 1...Self.rounds {
            // Given round `round`'s set published with its list
            try fixture.publish(withdrawals: Self.list(round, withdrawing: game))
            // When the app's update runs in a child process and is killed while it saves the list: as a
            // list file's temporary copy appears, or at a random point after it says what it installed
            // (the first round runs to the end, to learn how long saving takes)
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "update", "--manifest-url", fixture.manifestURL.absoluteString, "--public-key",
                fixture.key.publicKeyBase64, "--directory", fixture.support.path, "--bundle",
                fixture.bundle.directory.path, "--cache", cacheDirectory.path, "--quiet",
            ]
            let leftovers = Self.listTemporaries(cacheDirectory)
            let output = OutputLines(process)
            process.standardError = FileHandle.nullDevice
            try process.run()
            let installed = try await output.firstLine(within: .seconds(60))
            if round == 1 {
                process.waitUntilExit()
                saving = ContinuousClock.now - installed
                try #require(process.terminationStatus == 0, "the first run failed")
            } else if round.isMultiple(of: 2) {
                // As soon as a list file's temporary copy appears: in the middle of its write
                let deadline = ContinuousClock.now + saving * 20
                while Self.listTemporaries(cacheDirectory).isSubset(of: leftovers), process.isRunning,
                    ContinuousClock.now < deadline
                {}
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            } else {
                try await Task.sleep(for: saving * Double.random(in: 0...1.3, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
            if process.terminationReason == .exit { completed += 1 }
            if !Self.listTemporaries(cacheDirectory).isSubset(of: leftovers) { killedWhileWriting += 1 }
            // Then the next launch holds the list before or this round's, whole
            let relaunched = CatalogCache(
                upstream: ScriptedUpstream(), cacheDirectory: cacheDirectory, bundleDirectory: fixture.bundle.directory,
                logger: silentLogger)
            let sequence = relaunched.withdrawalSequence
            #expect(sequence == held || sequence == round, "round \(round): held \(held), found \(sequence)")
            #expect(sequence >= 1, "round \(round): no list survived")
            let page = fixture.bundle.catalog.editions[0].pages[0]
            let shown = relaunched.cachedGamesPage(
                edition: fixture.bundle.catalog.editions[0].edition, categoryId: page.categoryId)
            #expect(shown.value?.items.contains { $0.id == game } == false, "round \(round): the game is shown")
            held = max(held, sequence)
        }
        print(
            "withdrawal kill: \(Self.rounds) rounds, \(completed) ran to the end, \(killedWhileWriting) killed while "
                + "writing a list file, saving took \(saving)")
        #expect(held >= 1)
    }
}
