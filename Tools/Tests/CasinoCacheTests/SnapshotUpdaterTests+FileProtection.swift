@_spi(CatalogTools) import CasinoCache
import Foundation
import Testing

/// Data Protection on the over-the-air path (the rest of it is `FileProtectionTests`, in the root
/// package): a generation the device will not let the app read is passed over, never deleted.
extension SnapshotUpdaterTests {
    @Test func aGenerationTheAppCannotReadServesTheBundleAndIsNotDeleted() async throws {
        // Given a generation installed over the air
        try await withFixture { fixture in
            try fixture.publish(fixture.changedCatalog())
            guard case .installed(let installation) = try await fixture.launch().checkForUpdate() else {
                Issue.record("the update did not install")
                return
            }
            // When its directory is one the app cannot read (a locked device; here a file in its place)
            try FileManager.default.removeItem(at: installation.directory)
            try Data("locked".utf8).write(to: installation.directory)
            // Then the next launch serves the bundle, and leaves the generation where it is
            let launched = try fixture.launch()
            #expect(launched.activeVersion == nil)
            #expect(launched.activeSnapshotDirectory == fixture.bundle.directory)
            #expect(FileManager.default.fileExists(atPath: installation.directory.path))
        }
    }
}
