import CasinoCacheTesting
import CasinoCatalog
import CatalogPipeline
import Foundation
import Testing

/// `catalog sample --curated` regenerates the committed `data/` exactly, and replaces only a data
/// directory it wrote.
@Suite struct CuratedRecordingTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func regeneratesTheEmbeddedDataByteForByte() throws {
        // Given the committed data directory
        let committed = try fileTree(repositoryRoot.appendingPathComponent("data"))
        // When the curated data is written into a fresh directory
        let out = directory.child("data")
        let written = try CuratedRecording().write(to: out)
        // Then it holds the same files with the same bytes
        let generated = try fileTree(out)
        #expect(written == generated.count)
        #expect(generated.keys.sorted() == committed.keys.sorted())
        let differing = committed.keys.sorted().filter { generated[$0] != committed[$0] }
        #expect(differing.isEmpty, "differ from data/ (regenerate with `catalog sample --curated --output data`)")
    }

    /// The script named category directories with its own copy of the DIR rule; FileNaming is
    /// the same rule (expected names from the script's `category_dir`).
    @Test(arguments: [
        ("VIDEOSLOTS", "videoslots-d4a8b457ac"), ("../../etc/passwd", "etc_passwd-3754d6cb3a"),
        ("\u{212A}ELVIN", "elvin-6c5184c72a"), ("", "id-e3b0c44298"), ("é-Ü x", "x-3435614b69"),
        (
            String(repeating: "A", count: 39) + "_b" + String(repeating: "c", count: 10),
            String(repeating: "a", count: 39) + "-f23c87e591"
        ),
    ])
    func namesCategoryDirectoriesByTheScriptsRule(id: String, expected: String) {
        #expect(FileNaming.component(for: id) == expected)
    }

    @Test func writesAConfigurationThePipelineLoads() throws {
        // Given the curated data
        let out = directory.child("data")
        try CuratedRecording().write(to: out)
        // When its catalog.json is loaded
        let configuration = try PipelineConfiguration.load(from: out.appendingPathComponent("catalog.json"))
        // Then it names the recorded editions and page size
        #expect(configuration.editions.map(\.id) == ["en-iPhone", "fr-iPhone"])
        #expect(configuration.pageSize == 10)
    }

    @Test func replacesTheDataDirectoryItWroteAgain() throws {
        // Given a data directory the generator wrote, with one file changed
        let out = directory.child("data")
        try CuratedRecording().write(to: out)
        let before = try fileTree(out)
        try Data("{}".utf8).write(to: out.appendingPathComponent("feed/acme-feed.xml"))
        // When it is written again
        try CuratedRecording().write(to: out)
        // Then it is restored
        #expect(try fileTree(out) == before)
    }

    @Test(arguments: ["notes.txt", "README.md"])
    func refusesADataDirectoryHoldingSomeoneElsesFiles(foreign name: String) throws {
        // Given a data directory with a recording and someone's notes.txt, or a README.md of their own
        let out = directory.child("data")
        try CuratedRecording().write(to: out)
        try Data("my notes".utf8).write(to: out.appendingPathComponent(name))
        let before = try fileTree(out)
        // When the curated data is written there
        let error = #expect(throws: PipelineError.self) { try CuratedRecording().write(to: out) }
        // Then it refuses, naming the directory, and nothing changed
        #expect(error?.code == .outputNotReplaceable)
        #expect(error?.file == out.relativePath)
        #expect(try fileTree(out) == before)
    }

    @Test func refusesASnapshotOrARecordingDirectory() throws {
        // Given a recording written by SampleRecording
        let recording = directory.child("provider")
        try SampleRecording(games: 5, categories: 1).write(to: recording)
        // Then the curated data does not replace it (it is a recording, not a data directory)
        #expect(throws: PipelineError.self) { try CuratedRecording().write(to: recording) }
        // And a snapshot is not published over the curated data
        let data = directory.child("data")
        try CuratedRecording().write(to: data)
        #expect(throws: PipelineError.self) {
            try buildSnapshot(from: data.appendingPathComponent("provider"), to: data)
        }
    }
}
