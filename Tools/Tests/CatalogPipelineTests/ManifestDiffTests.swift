@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// A recording of en-iPhone with 12 games in SLOTS and 3 (ids from 100) in LIVE.
func slotsAndLive(in directory: TemporaryDirectory) throws -> RecordingBuilder {
    let recording = RecordingBuilder(root: directory.child("provider"))
    try recording.writeMetadata(editions: [enIPhone])
    try recording.writeCategories([("SLOTS", "Slots", 12), ("LIVE", "Live", 3)])
    try recording.writeCategory("SLOTS", games: 12)
    try recording.writeCategory("LIVE", games: 3, firstID: 100)
    return recording
}

@Suite struct ManifestDiffTests {
    @Test func findsAddedRemovedAndChangedContentButIgnoresDates() throws {
        // Given a snapshot, and a second one of changed data stamped at another time
        let directory = try TemporaryDirectory()
        let recording = try slotsAndLive(in: directory)
        let old = try buildSnapshot(from: recording.layout.root, to: directory.child("old"))

        var later = recording
        later.fetchedAt = recording.fetchedAt.addingTimeInterval(3600)
        try later.writeMetadata(editions: [enIPhone])
        #expect(
            ManifestDiff(from: old, to: try buildSnapshot(from: recording.layout.root, to: directory.child("same")))
                .isEmpty)

        try recording.writeCategories([("SLOTS", "Slots", 25), ("NEW", "New", 2)])
        try recording.writeCategory("SLOTS", games: 25)
        try recording.writeCategory("NEW", games: 2, firstID: 200)
        let new = try buildSnapshot(from: recording.layout.root, to: directory.child("new"))
        // When compared
        let diff = ManifestDiff(from: old, to: new)
        // Then the new category and page are added, LIVE removed, SLOTS changed
        #expect(diff.added.map(\.key.description) == ["en-iPhone/games/NEW/0", "en-iPhone/games/SLOTS/20"])
        #expect(diff.removed.map(\.key.description) == ["en-iPhone/games/LIVE/0"])
        #expect(diff.changed.map(\.new.key.description).contains("en-iPhone/categories"))
        #expect(diff.lines.contains("~ en-iPhone/games/SLOTS/10 (2 → 10 items, total 12 → 25)"))
        #expect(diff.addedImages.isEmpty && diff.removedImages.isEmpty && diff.changedImages.isEmpty)
    }

    @Test func findsAddedRemovedAndChangedImagesByURL() throws {
        // Given a manifest bundling two images, and one where the first changed, the second is gone and a third came
        func image(_ name: String, _ byte: Character) -> Manifest.Image {
            let sha = String(repeating: byte, count: 64)
            return Manifest.Image(
                url: "https://static.example.com/\(name).png", path: Manifest.Image.path(sha256: sha, mediaType: .png),
                bytes: 100, sha256: sha, mediaType: .png)
        }
        let directory = try TemporaryDirectory()
        let recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone])
        try recording.writeCategories([("SLOTS", "Slots", 3)])
        try recording.writeCategory("SLOTS", games: 3)
        var old = try buildSnapshot(from: recording.layout.root, to: directory.child("old"))
        var new = old
        old.images = [image("a", "1"), image("b", "2")]
        new.images = [image("a", "3"), image("c", "4")]
        // When compared
        let diff = ManifestDiff(from: old, to: new)
        // Then each difference is found by URL and listed after the content's
        #expect(!diff.isEmpty && diff.added.isEmpty && diff.changed.isEmpty)
        #expect(diff.addedImages.map(\.url) == ["https://static.example.com/c.png"])
        #expect(diff.removedImages.map(\.url) == ["https://static.example.com/b.png"])
        #expect(diff.changedImages.map(\.new.sha256) == [String(repeating: "3", count: 64)])
        #expect(
            diff.lines == [
                "+ image https://static.example.com/c.png (100 bytes)",
                "- image https://static.example.com/b.png (100 bytes)",
                "~ image https://static.example.com/a.png (100 → 100 bytes)",
            ])
        #expect(ManifestDiff(from: old, to: old).isEmpty)
    }
}

/// `CatalogDiff`: what a player would see change, and its Markdown for a pull request.
@Suite struct CatalogDiffTests {
    @Test func namesTheCategoriesAndGamesAddedRemovedAndRenamedAndEscapesTheirNames() throws {
        // Given a snapshot, and one where a category is gone, a game renamed and a game added with markup in its name
        let directory = try TemporaryDirectory()
        let recording = try slotsAndLive(in: directory)
        let source = try RecordedProviderSource(directory: recording.layout.root)
        let catalog = try Normalizer(configuration: .default, logger: quietLogger).normalize(source).catalog
        try SnapshotWriter(logger: quietLogger).write(catalog, to: directory.child("old"))
        var changed = catalog
        changed.editions[0].categories.items.removeAll { $0.id == "LIVE" }
        changed.editions[0].pages.removeAll { $0.categoryId == "LIVE" }
        let renamed = changed.editions[0].pages[0].items[0]
        changed.editions[0].pages[0].items[0].name = "Renamed"
        var added = changed.editions[0].pages[0].items[1]
        added.id = "900"
        added.name = "A | <script>x</script> *bold*"
        changed.editions[0].pages[0].items[1] = added
        let removedFromPage = catalog.editions[0].pages[0].items[1]
        try SnapshotWriter(logger: quietLogger).write(changed, to: directory.child("new"))
        // When compared
        let diff = try CatalogDiff(old: directory.child("old"), new: directory.child("new"))
        let markdown = diff.markdown(old: "old", new: "new")
        // Then the edition's changes are named, and the name cannot break the table or inject markup
        let edition = try #require(diff.editions.first)
        #expect(edition.categoriesRemoved.map(\.id) == ["LIVE"] && edition.categoriesAdded.isEmpty)
        #expect(edition.gamesRenamed.map { [$0.id, $0.old, $0.new] } == [[renamed.id, renamed.name, "Renamed"]])
        #expect(edition.gamesAdded.map(\.id) == ["900"])
        #expect(Set(edition.gamesRemoved.map(\.id)) == Set(["100", "101", "102", removedFromPage.id]))
        #expect(edition.pagesRemoved == 1 && edition.pagesChanged == 2, "\(edition)")
        #expect(markdown.contains("| en-iPhone | +0 −1 | +1 −4 | 1 | +0 −1 ~2 |"), "\(markdown)")
        #expect(markdown.contains("| game added | 900 | A \\| \\<script\\>x\\</script\\> \\*bold\\* |"), "\(markdown)")
        #expect(!markdown.contains("<script>"))
        #expect(markdown.contains("| game renamed | \(renamed.id) |"))
        // And two equal snapshots say so
        #expect(
            try CatalogDiff(old: directory.child("old"), new: directory.child("old")).markdown(old: "a", new: "b")
                .contains("No content or image differs"))
    }
}
