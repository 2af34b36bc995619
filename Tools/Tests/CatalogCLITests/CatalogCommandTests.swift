@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// The embedded recording in `data/provider`.
let recordedSource = repositoryRoot.appendingPathComponent("data/provider").path

/// The `catalog` binary as a release engineer runs it: a subprocess, its exit status and what it
/// writes to standard error. Each failure class of the exit-code table (`catalog --help`) has a
/// case here that checks the status and that the message names the file at fault.
@Suite(.timeLimit(.minutes(5)))
struct CatalogCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A directory someone else owns: a notes file and a subfolder.
    func makeForeignDirectory(_ name: String) throws -> URL {
        let url = directory.child(name)
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("src"), withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: url.appendingPathComponent("notes.txt"))
        try Data("print(1)".utf8).write(to: url.appendingPathComponent("src/main.swift"))
        return url
    }

    /// A copy of the embedded recording in `data/provider`, to break.
    func copyOfRecording() throws -> URL {
        let copy = directory.child("provider")
        try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent("data/provider"), to: copy)
        return copy
    }

    func write(_ text: String, to name: String) throws -> URL {
        let url = directory.child(name)
        try Data(text.utf8).write(to: url)
        return url
    }

    // MARK: - Success

    @Test func buildsValidatesAndInspectsTheEmbeddedRecording() async throws {
        // Given the embedded recording
        let out = directory.child("out")
        // When it is snapshotted, validated and inspected
        let snapshot = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--out", out.path, "--quiet",
        ])
        let validate = try await CatalogBinary.run(["validate", out.path])
        let inspect = try await CatalogBinary.run(["inspect", out.path])
        // Then every step exits 0 and the manifest is there
        #expect(snapshot.status == 0, "\(snapshot.standardError)")
        #expect(validate.status == 0, "\(validate.standardError)")
        #expect(inspect.status == 0, "\(inspect.standardError)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))
    }

    // MARK: - 2: valid, but older than --max-age

    @Test func aSnapshotOlderThanTheMaximumAgeExits2SayingHowOldAndHowToRebuild() async throws {
        // Given a valid snapshot generated ten days and an hour ago
        let out = directory.child("out")
        let generated = Int(Date().timeIntervalSince1970) - 10 * 86_400 - 3_600
        try #require(
            try await CatalogBinary.run([
                "snapshot", "--source", recordedSource, "--out", out.path, "--source-date-epoch", "\(generated)",
                "--quiet",
            ]).status == 0)
        // When it is validated with a gate of 7 days, of 30 days, and without one
        let stale = try await CatalogBinary.run(["validate", out.path, "--max-age", "7d"])
        let fresh = try await CatalogBinary.run(["validate", out.path, "--max-age", "30d"])
        let ungated = try await CatalogBinary.run(["validate", out.path])
        // Then only the 7-day gate fails it, with its own status, its age and how to rebuild it
        #expect(stale.status == 2, "\(stale.standardError)")
        for part in ["generated 10 days 1 hours ago", "over --max-age 7d", "make snapshot"] {
            #expect(stale.standardError.contains(part), "\(part) in \(stale.standardError)")
        }
        #expect(fresh.status == 0, "\(fresh.standardError)")
        #expect(ungated.status == 0, "\(ungated.standardError)")
    }

    @Test(arguments: ["7", "7w", "-7d", "0d", "d", "99999999999d"])
    func aMaximumAgeThatIsNotOneIsABadArgument(_ text: String) async throws {
        let result = try await CatalogBinary.run(["validate", directory.url.path, "--max-age=\(text)"])
        #expect(result.status == 64, "\(result.standardError)")
        #expect(result.standardError.contains("--max-age"))
    }

    // MARK: - 1: the snapshot does not validate

    @Test func aTamperedSnapshotFailsValidationNamingTheFile() async throws {
        // Given a valid snapshot with one page's bytes changed
        let out = directory.child("out")
        try #require(
            try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", out.path, "--quiet"]).status
                == 0)
        let page = try #require(try files(under: out).first { $0.hasSuffix("/0.json.gz") })
        let handle = try FileHandle(forWritingTo: out.appendingPathComponent(page))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("x".utf8))
        try handle.close()
        // When it is validated
        let result = try await CatalogBinary.run(["validate", out.path])
        // Then it exits 1 and names the page
        #expect(result.status == 1)
        #expect(result.standardError.contains(page))
    }

    // MARK: - 64: bad arguments

    @Test(arguments: [
        ["snapshot", "--normalized", "n.json", "--source", "data/provider"],
        ["normalize", "--kind", "yaml", "--output", "n.json"],
        ["validate", "--no-such-flag"],
        ["sample", "--games", "0", "--output", "no-such-sample"],
    ])
    func badArgumentsAreAUsageError(arguments: [String]) async throws {
        let result = try await CatalogBinary.run(arguments)
        #expect(result.status == 64, "\(result.standardError)")
    }

    // MARK: - 65: bad input data

    @Test func anEmptyJSONFileInARecordingIsMalformedInputNamingTheFile() async throws {
        // Given a recording whose categories file is empty
        let recording = try copyOfRecording()
        let categories = recording.appendingPathComponent("en-iPhone/categories.json")
        try #require(FileManager.default.fileExists(atPath: categories.path))
        try Data().write(to: categories)
        // When it is normalized
        let result = try await CatalogBinary.run([
            "normalize", "--source", recording.path, "--output", directory.child("n.json").path,
        ])
        // Then 65, naming the file
        #expect(result.status == 65, "\(result.standardError)")
        #expect(result.standardError.contains("categories.json"))
    }

    @Test(arguments: [
        ("empty.xml", ""),
        ("doctype.xml", "<?xml version=\"1.0\"?>\n<!DOCTYPE feed [<!ENTITY x \"y\">]>\n<feed>&x;</feed>\n"),
        ("broken.xml", "<feed><games><game id=\"1\"></games></feed>\n"),
    ])
    func aBadXMLFeedIsMalformedInputNamingTheFile(name: String, text: String) async throws {
        // Given a feed that is empty, declares a DTD, or is not well-formed
        let feed = try write(text, to: name)
        // When it is normalized
        let result = try await CatalogBinary.run([
            "normalize", "--source", feed.path, "--output", directory.child("n.json").path,
        ])
        // Then 65, naming the feed
        #expect(result.status == 65, "\(result.standardError)")
        #expect(result.standardError.contains(name))
    }

    @Test func aDirectoryReadAsAnXMLFeedIsMalformedInput() async throws {
        let result = try await CatalogBinary.run([
            "normalize", "--source", directory.url.path, "--kind", "xml", "--output", directory.child("n.json").path,
        ])
        #expect(result.status == 65, "\(result.standardError)")
        #expect(result.standardError.contains(directory.url.lastPathComponent))
    }

    // MARK: - 66: input not found

    @Test(arguments: ["validate", "inspect"])
    func aMissingSnapshotDirectoryIsMissingInput(command: String) async throws {
        let missing = directory.child("no-such-out").path
        let result = try await CatalogBinary.run([command, missing])
        #expect(result.status == 66, "\(result.standardError)")
        #expect(result.standardError.contains("no-such-out"))
    }

    @Test func aMissingSourceIsMissingInput() async throws {
        let result = try await CatalogBinary.run([
            "normalize", "--source", directory.child("no-such-recording").path, "--output",
            directory.child("n.json").path,
        ])
        #expect(result.status == 66, "\(result.standardError)")
        #expect(result.standardError.contains("no-such-recording"))
    }

    // MARK: - 73: the output is not ours

    @Test(arguments: [
        ["snapshot", "--source", recordedSource, "--out"], ["sample", "--games", "5", "--output"],
    ])
    func aForeignOutputDirectoryIsRefusedAndLeftUntouched(command: [String]) async throws {
        // Given someone's directory
        let foreign = try makeForeignDirectory("mine")
        let before = try fileTree(foreign)
        // When a command publishes there
        let result = try await CatalogBinary.run(command + [foreign.path])
        // Then 73, naming the directory and a foreign file, and nothing changed
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.contains("mine"))
        #expect(result.standardError.contains("notes.txt") || result.standardError.contains("src"))
        #expect(try fileTree(foreign) == before)
    }

    @Test func anOutputThatIsAFileIsRefused() async throws {
        let file = try write("keep me", to: "out.txt")
        let result = try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", file.path])
        #expect(result.status == 73, "\(result.standardError)")
        #expect(result.standardError.contains("out.txt"))
        #expect(try String(contentsOf: file, encoding: .utf8) == "keep me")
    }

    // MARK: - 78: bad configuration

    @Test func anUnknownConfigurationKeyNamesTheKeyAndTheNearestKnownOne() async throws {
        // Given a configuration with a typo
        let config = try write(#"{"editons": ["en-iPhone"]}"#, to: "typo.json")
        // When a snapshot is built with it
        let result = try await CatalogBinary.run([
            "snapshot", "--source", recordedSource, "--config", config.path, "--out", directory.child("out").path,
        ])
        // Then 78, naming the file, the key and the suggestion; no output was written
        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains("typo.json"))
        #expect(result.standardError.contains("editons"))
        #expect(result.standardError.contains("editions"))
        #expect(!FileManager.default.fileExists(atPath: directory.child("out").path))
    }

    @Test func aConfigurationThatIsNotJSONIsBadConfiguration() async throws {
        let config = try write("pageSize: 10", to: "config.yaml")
        let result = try await CatalogBinary.run(["validate", "--config", config.path, repositoryRoot.path])
        #expect(result.status == 78, "\(result.standardError)")
        #expect(result.standardError.contains("config.yaml"))
    }

    // MARK: - Helpers

    func files(under root: URL) throws -> [String] {
        try fileTree(root).keys.sorted()
    }

    func fileTree(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = try #require(FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil))
        for case let url as URL in enumerator {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            result[relative] = try Data(contentsOf: url)
        }
        return result
    }
}
