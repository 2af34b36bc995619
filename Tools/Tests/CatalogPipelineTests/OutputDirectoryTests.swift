@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

/// Publishing never destroys what the pipeline did not create.
@Suite struct OutputDirectoryTests {
    let directory: TemporaryDirectory
    let recording: RecordingBuilder

    init() throws {
        directory = try TemporaryDirectory()
        recording = RecordingBuilder(root: directory.child("provider"))
        try recording.writeMetadata(editions: [enIPhone])
        try recording.writeCategories([("SLOTS", "Slots", 12)])
        try recording.writeCategory("SLOTS", games: 12)
    }

    /// Someone's directory: a notes file and a subfolder.
    func makeForeignDirectory(_ name: String) throws -> URL {
        let url = directory.child(name)
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("src"), withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
        try Data("print(1)".utf8).write(to: url.appendingPathComponent("src/main.swift"))
        return url
    }

    @Test func refusesToReplaceADirectoryOfSomeoneElsesFilesAndLeavesItUntouched() throws {
        // Given a directory holding notes.txt
        let foreign = try makeForeignDirectory("notes")
        let before = try fileTree(foreign)
        // When a snapshot or a sample recording is published there
        let snapshot = #expect(throws: PipelineError.self) {
            try buildSnapshot(from: recording.layout.root, to: foreign)
        }
        let sample = #expect(throws: PipelineError.self) {
            try SampleRecording(games: 5, categories: 1).write(to: foreign)
        }
        // Then both refuse, naming the directory and a foreign file, and nothing changed
        for error in [snapshot, sample] {
            #expect(error?.code == .outputNotReplaceable)
            #expect(error?.file == foreign.relativePath)
            #expect(error?.message.contains("notes.txt") == true)
        }
        #expect(try fileTree(foreign) == before)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted() == ["notes", "provider"])
    }

    @Test func refusesAFileAsTheOutputBeforeAnyWork() throws {
        let file = directory.child("out")
        try Data("x".utf8).write(to: file)
        let error = #expect(throws: PipelineError.self) {
            try OutputDirectory.checkReplaceable(file, holding: .snapshot)
        }
        #expect(error?.code == .outputNotReplaceable)
        #expect(try Data(contentsOf: file) == Data("x".utf8))
    }

    @Test func publishesIntoAMissingAnEmptyOrAFreshClonesOutDirectory() throws {
        // Given a missing directory, an empty one, and one holding only the README a snapshot carries
        let empty = directory.child("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: false)
        let fresh = directory.child("fresh")
        try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: false)
        try Data(SnapshotLayout.readme.utf8).write(to: fresh.appendingPathComponent(SnapshotLayout.readmeName))
        // Then a snapshot is published into each, and replaced by the next build
        for out in [directory.child("missing"), empty, fresh] {
            try buildSnapshot(from: recording.layout.root, to: out)
            try buildSnapshot(from: recording.layout.root, to: out)
            #expect(SnapshotValidator().validate(directory: out).isValid)
        }
    }

    @Test func refusesASnapshotDirectoryForARecordingAndTheOtherWayRound() throws {
        let out = directory.child("out")
        try buildSnapshot(from: recording.layout.root, to: out)
        #expect(throws: PipelineError.self) { try SampleRecording(games: 5, categories: 1).write(to: out) }
        #expect(throws: PipelineError.self) {
            try buildSnapshot(from: recording.layout.root, to: recording.layout.root)
        }
        #expect(SnapshotValidator().validate(directory: out).isValid)
    }

    @Test func removesStagingLeftoversOfAKilledRunButNothingElse() throws {
        // Given what a killed run leaves beside out/, and look-alikes that are not ours
        let ours = [
            ".out.staging-8F4E2C1A-0000-4000-8000-000000000000", ".out.previous-8F4E2C1A-0000-4000-8000-000000000001",
        ]
        let theirs = [".out.staging-backup", ".other.staging-8F4E2C1A-0000-4000-8000-000000000000", "out.staging-x"]
        for name in ours + theirs {
            try FileManager.default.createDirectory(at: directory.child(name), withIntermediateDirectories: false)
        }
        // When the next run publishes
        try buildSnapshot(from: recording.layout.root, to: directory.child("out"))
        // Then only our leftovers are gone
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
        #expect(names.isDisjoint(with: ours))
        #expect(names.isSuperset(of: theirs))
    }
}
