@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// The withdrawal list signed with an over-the-air set (`catalog publish --withdrawals`): an app
/// offline on its bundle applies it at once, from the check that installs the set or, when that
/// process died first, from the next check, and never goes back.
@Suite(.timeLimit(.minutes(3)))
struct SnapshotUpdaterWithdrawalTests {
    /// An app offline (no upstream answers) on the fixture's bundle, saving into `cache/`.
    func makeCache(_ fixture: PublishedSetFixture) -> CatalogCache {
        CatalogCache(
            configuration: .showingEveryGame, upstream: ScriptedUpstream(),
            cacheDirectory: fixture.directory.child("cache"), bundleDirectory: fixture.bundle.directory,
            logger: silentLogger)
    }

    func firstPageIDs(_ cache: CatalogCache, _ fixture: PublishedSetFixture) -> [String] {
        let page = fixture.bundle.catalog.editions[0].pages[0]
        return cache.cachedGamesPage(edition: fixture.bundle.catalog.editions[0].edition, categoryId: page.categoryId)
            .value?.items.map(\.id) ?? []
    }

    var withdrawn: (PublishedSetFixture) -> String { { $0.bundle.catalog.editions[0].pages[0].items[0].id } }

    @Test func theListSignedWithANewSetLeavesTheBundledLobbyAtOnceAndAcrossARelaunch() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app showing its bundled lobby, and a set published with a list withdrawing its first game
            let cache = makeCache(fixture)
            let game = withdrawn(fixture)
            #expect(firstPageIDs(cache, fixture).first == game)
            try fixture.publish(withdrawals: WithdrawalList(sequence: 7, games: [Withdrawal(id: game)]))
            // When the app checks for an update through its cache
            let outcome = try await cache.checkForSnapshotUpdate(with: fixture.launch())
            // Then the set is installed for the next launch, and the game is gone from the bundle's page now
            guard case .installed(let installation) = outcome else {
                Issue.record("not installed: \(outcome)")
                return
            }
            #expect(installation.withdrawals?.sequence == 7)
            #expect(cache.withdrawalSequence == 7)
            let ids = firstPageIDs(cache, fixture)
            #expect(!ids.isEmpty && !ids.contains(game))
            // And after a relaunch, still on the old bundle, too
            await cache.flush()
            let relaunched = makeCache(fixture)
            #expect(relaunched.withdrawalSequence == 7)
            #expect(!firstPageIDs(relaunched, fixture).contains(game))
        }
    }

    @Test func aProcessKilledBeforeApplyingTheListCatchesUpAtItsNextCheck() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a set with a list installed by an updater alone (the process died before applying the list)
            try fixture.publish(withdrawals: WithdrawalList(sequence: 3, games: [Withdrawal(id: withdrawn(fixture))]))
            guard case .installed = try await fixture.launch().checkForUpdate() else {
                Issue.record("not installed")
                return
            }
            let cache = makeCache(fixture)
            #expect(cache.withdrawalSequence == 0)
            // When the next launch checks through its cache and is up to date
            let outcome = try await cache.checkForSnapshotUpdate(with: fixture.launch())
            // Then the installed generation's list is applied
            guard case .upToDate(let version) = outcome else {
                Issue.record("expected up to date: \(outcome)")
                return
            }
            #expect(version == 1)
            #expect(cache.withdrawalSequence == 3)
            #expect(!firstPageIDs(cache, fixture).contains(withdrawn(fixture)))
        }
    }

    @Test func aGenerationsSignedListIsReadOnceAndANewGenerationsAgain() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 1 installed with list 3, and its list read once
            try fixture.publish(withdrawals: WithdrawalList(sequence: 3, games: [Withdrawal(id: withdrawn(fixture))]))
            let updater = try fixture.launch()
            guard case .installed(let first) = try await updater.checkForUpdate() else {
                Issue.record("not installed")
                return
            }
            #expect(updater.installedWithdrawals()?.sequence == 3)
            // When its signed manifest is then unreadable (a generation never changes: it is not read again)
            let published = first.directory.appendingPathComponent("published.json")
            try Data("garbage".utf8).write(to: published, options: .atomic)
            // Then the list read before still answers, until a new generation brings its own
            #expect(updater.installedWithdrawals()?.sequence == 3)
            try fixture.publish(
                fixture.changedCatalog(), withdrawals: WithdrawalList(sequence: 4, games: [Withdrawal(id: "gone")]))
            guard case .installed = try await updater.checkForUpdate() else {
                Issue.record("version 2 not installed")
                return
            }
            #expect(updater.installedWithdrawals()?.sequence == 4)
            #expect(try fixture.launch().installedWithdrawals()?.sequence == 4)
        }
    }

    @Test func aSignedListOlderThanTheOneHeldChangesNothing() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app that learned list 9 (from its provider) with no game withdrawn
            let cache = makeCache(fixture)
            try cache.applyWithdrawals(WithdrawalList(sequence: 9, games: []))
            try fixture.publish(withdrawals: WithdrawalList(sequence: 4, games: [Withdrawal(id: withdrawn(fixture))]))
            // When a set signed with list 4 is installed
            let outcome = try await cache.checkForSnapshotUpdate(with: fixture.launch())
            // Then the set installs, and list 9 stands: the game is shown
            guard case .installed = outcome else {
                Issue.record("not installed: \(outcome)")
                return
            }
            #expect(cache.withdrawalSequence == 9)
            #expect(firstPageIDs(cache, fixture).first == withdrawn(fixture))
        }
    }

    @Test(arguments: [
        (WithdrawalList(sequence: 2, games: [Withdrawal(id: "a"), Withdrawal(id: "a")]), "named twice"),
        (WithdrawalList(sequence: 0, games: []), "sequence 0"),
        (WithdrawalList(sequence: 2, games: [Withdrawal(id: "")]), "games[0]"),
    ])
    func aSetSigningABadListIsRefusedAndNothingChanges(_ list: WithdrawalList, _ named: String) async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a set whose signed manifest carries a list that does not check
            try fixture.publish()
            var payload = try fixture.currentPayload()
            payload.withdrawals = list
            try fixture.serve(payload)
            let cache = makeCache(fixture)
            // When the app checks
            let outcome = try await cache.checkForSnapshotUpdate(with: fixture.launch())
            // Then the set is refused naming the list's fault, and no withdrawal is held
            guard case .refused(let error) = outcome else {
                Issue.record("not refused: \(outcome)")
                return
            }
            #expect(error.code == .unsafeEntry)
            #expect(error.message.contains("withdrawals: ") && error.message.contains(named), "\(error)")
            #expect(cache.withdrawalSequence == 0)
            #expect(fixture.generationNames().isEmpty)
        }
    }

    @Test func thePublisherRefusesAListOlderThanTheSetsAndASnapshotThatStillShowsAWithdrawnGame() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a set published with list 5
            let list = WithdrawalList(sequence: 5, games: [Withdrawal(id: withdrawn(fixture))])
            try fixture.publish(withdrawals: list)
            // When list 4 is published, and then the bundle (which still shows the game) with list 6
            let older = #expect(throws: PipelineError.self) {
                try fixture.publish(withdrawals: WithdrawalList(sequence: 4, games: list.games))
            }
            let publisher = SnapshotPublisher(key: fixture.key, logger: silentLogger)
            let stale = #expect(throws: PipelineError.self) {
                try publisher.publish(
                    from: fixture.bundle.directory, to: fixture.published,
                    withdrawals: WithdrawalList(sequence: 6, games: list.games))
            }
            // Then both are refused, saying why, and the set still publishes version 1 with list 5
            #expect(older?.code == .invalidConfiguration)
            #expect(older?.message.contains("below 5") == true, "\(String(describing: older))")
            #expect(stale?.code == .validationFailed)
            #expect(
                "\(String(describing: stale))".contains("rebuild with --withdrawals"), "\(String(describing: stale))")
            let current = try fixture.currentPayload()
            #expect(current.version == 1 && current.withdrawals == list)
        }
    }
}
