@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

#if canImport(CatalogSigning)
import CatalogSigning
#endif

/// Root and online keys over loopback HTTP: the app pins root keys, a root signs the list of online
/// keys, an online key signs sets; a leaked online key is revoked by a higher list without it.
@Suite(.timeLimit(.minutes(5)))
struct SigningKeyListTests {
    /// A list of `keys` signed by `root`, expiring in `expiresIn` seconds.
    static func list(
        _ version: Int, _ keys: [SigningKey], signedBy root: SigningKey, expiresIn: TimeInterval = 365 * 86_400
    ) throws -> SignedKeyList {
        try root.sign(
            SigningKeyList(
                version: version, expiresAt: Date().addingTimeInterval(expiresIn),
                keys: keys.map { .init(id: $0.keyId, publicKey: $0.publicKeyBase64) }))
    }

    /// The refusal a check answered, or `nil` for any other outcome.
    static func refusal(_ outcome: SnapshotUpdater.Outcome) -> SnapshotUpdateError.Code? {
        if case .refused(let error) = outcome { error.code } else { nil }
    }

    @Test func aRevokedKeyIsRefusedAfterTheNewListAndAnOlderListReplayedIsRefusedAcrossARelaunch() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app pinning the root (the fixture's key), and a set signed by online key A on list 1
            let root = fixture.key
            let (onlineA, onlineB) = (SigningKey.generate(), SigningKey.generate())
            let first = try Self.list(1, [onlineA], signedBy: root)
            try fixture.publish(onlineKey: onlineA, keyList: first)
            guard case .installed = try await fixture.launch().checkForUpdate() else {
                Issue.record("a set signed by a listed key did not install")
                return
            }
            // When A leaks: the root signs list 2 naming only B, and B publishes with it
            let second = try Self.list(2, [onlineB], signedBy: root)
            try fixture.publish(fixture.changedCatalog(), onlineKey: onlineB, keyList: second)
            guard case .installed(let installed) = try await fixture.launch().checkForUpdate() else {
                Issue.record("the set signed by the new key did not install")
                return
            }
            // Then a set signed by A is refused, with the new list (revoked) and with the old one
            // replayed (rollback), by an updater made at a new launch
            try fixture.publish(fixture.changedCatalog(name: "Forged"), onlineKey: onlineA, keyList: first)
            let replayed = try await fixture.launch().checkForUpdate()
            #expect(Self.refusal(replayed) == .rollback, "\(replayed)")
            let signed = try JSONDecoder().decode(
                SignedManifest.self, from: Data(contentsOf: fixture.published.appendingPathComponent("manifest.json")))
            try fixture.serveSigned(
                try #require(signed.payloadBytes), signedBy: onlineA, keyList: second)
            let revoked = try await fixture.launch().checkForUpdate()
            #expect(Self.refusal(revoked) == .revokedKey, "\(revoked)")
            // And a set with no list at all, once one was installed, is a rollback too, even signed
            // by the root itself (it would reset what an older list may do)
            try fixture.serveSigned(try #require(signed.payloadBytes))
            let unlisted = try await fixture.launch().checkForUpdate()
            #expect(Self.refusal(unlisted) == .rollback, "\(unlisted)")
            // And the generation signed by B keeps serving
            #expect(try fixture.launch().activeVersion == installed.version)
        }
    }

    @Test func anExpiredListIsRefusedAndTheInstalledGenerationServes() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a set signed under a list that expires in a day, the set itself in thirty
            let online = SigningKey.generate()
            try fixture.publish(
                onlineKey: online, keyList: try Self.list(1, [online], signedBy: fixture.key, expiresIn: 86_400))
            // When the app checks two days later
            let clock = ManualClock(now: Date())
            clock.advance(by: .seconds(2 * 86_400))
            let outcome = try await fixture.launch(clock: clock).checkForUpdate()
            // Then the list's expiry refuses it, and the bundle serves
            #expect(Self.refusal(outcome) == .expiredKeyList, "\(outcome)")
            #expect(try fixture.launch().activeVersion == nil)
        }
    }

    @Test func aListSignedByAKeyThatIsNotAPinnedRootIsRefused() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an online key that lists itself
            let online = SigningKey.generate()
            try fixture.publish(onlineKey: online, keyList: try Self.list(1, [online], signedBy: online))
            // When the app checks, then the list is untrusted and nothing is installed
            let outcome = try await fixture.launch().checkForUpdate()
            #expect(Self.refusal(outcome) == .untrustedKeyList, "\(outcome)")
            #expect(try fixture.launch().activeVersion == nil)
        }
    }

    @Test func theSpareRootTakesOverWithoutAnAppRelease() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given an app pinning the root in use and a spare kept offline
            let spare = SigningKey.generate()
            let online = SigningKey.generate()
            try fixture.publish(onlineKey: online, keyList: try Self.list(1, [online], signedBy: fixture.key))
            let pinningBoth = { (configuration: inout SnapshotUpdater.Configuration) in
                configuration.verifiers.append(try! Ed25519SignatureVerifier(publicKey: spare.publicKey))
            }
            guard case .installed = try await fixture.launch(pinningBoth).checkForUpdate() else {
                Issue.record("the first set did not install")
                return
            }
            // When the root in use is lost and the spare signs the next list
            try fixture.publish(
                fixture.changedCatalog(), onlineKey: online, keyList: try Self.list(2, [online], signedBy: spare))
            // Then the next set installs
            let outcome = try await fixture.launch(pinningBoth).checkForUpdate()
            guard case .installed(let installation) = outcome else {
                Issue.record("the set under the spare's list answered \(outcome)")
                return
            }
            #expect(installation.version == 2)
        }
    }
}
