@_spi(CatalogTools) import CasinoCacheTesting
import Foundation
import Testing

/// `Scripts/xcode-build-phase.sh` run as Xcode runs a Run Script phase: with the variables Xcode sets,
/// on a good, a stale, a broken and a missing snapshot.
@Suite(.timeLimit(.minutes(5)))
struct XcodeBuildPhaseTests {
    let directory: TemporaryDirectory
    let out: URL
    let build: URL

    init() throws {
        directory = try TemporaryDirectory()
        out = directory.child("out")
        build = directory.child("Build/Products/Debug-iphonesimulator")
    }

    /// The app's resources folder inside the built product.
    var resources: URL { build.appendingPathComponent("Lobby.app") }

    struct Run {
        var status: Int32
        var output: String
    }

    /// Runs the script with Xcode's variables (unless `xcode` is false) and `settings`.
    func runPhase(_ settings: [String: String] = [:], xcode: Bool = true) async throws -> Run {
        var environment = ProcessInfo.processInfo.environment
        if xcode {
            environment["SRCROOT"] = directory.url.path
            environment["TARGET_BUILD_DIR"] = build.path
            environment["UNLOCALIZED_RESOURCES_FOLDER_PATH"] = "Lobby.app"
            environment["CONFIGURATION"] = "Release"
        }
        environment["CASINO_CATALOG_CLI"] = CatalogBinary.url.path
        environment.merge(settings) { _, new in new }
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["bash", repositoryRoot.appendingPathComponent("Scripts/xcode-build-phase.sh").path],
            environment: environment, deadline: .seconds(240))
        try #require(!result.timedOut, "the build phase ran past 240 s: killed")
        return Run(status: result.status, output: result.standardOutput + result.standardError)
    }

    func makeSnapshot() async throws {
        let result = try await CatalogBinary.run(["snapshot", "--source", recordedSource, "--out", out.path, "--quiet"])
        try #require(result.status == 0, "\(result.standardError)")
    }

    @Test func aGoodSnapshotIsCopiedWholeIntoTheProductsResources() async throws {
        // Given a snapshot, and a product holding a file an older snapshot left
        try await makeSnapshot()
        let copy = resources.appendingPathComponent("CasinoCatalog")
        try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
        try Data("old".utf8).write(to: copy.appendingPathComponent("left-over.json.gz"))
        // When the phase runs with a generous freshness gate
        let run = try await runPhase(["CASINO_CATALOG_MAX_AGE": "3650d"])
        // Then the copy is the snapshot, file for file, and the phase says where it went
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("note: CasinoCatalog: copied"), "\(run.output)")
        #expect(
            try Data(contentsOf: copy.appendingPathComponent("manifest.json"))
                == Data(contentsOf: out.appendingPathComponent("manifest.json")))
        let copied = try #require(FileManager.default.subpaths(atPath: copy.path)).sorted()
        #expect(copied == (try #require(FileManager.default.subpaths(atPath: out.path))).sorted())
        print(run.output)
    }

    @Test func aSnapshotOlderThanTheGateFailsTheBuildOrWarnsWhenToldTo() async throws {
        // Given a snapshot of the embedded recording, generated days ago
        try await makeSnapshot()
        // When the phase runs with a one-day gate, as an error and as a warning
        let failing = try await runPhase(["CASINO_CATALOG_MAX_AGE": "1d"])
        let copiedWhenFailing = FileManager.default.fileExists(
            atPath: resources.appendingPathComponent("CasinoCatalog").path)
        let warning = try await runPhase(["CASINO_CATALOG_MAX_AGE": "1d", "CASINO_CATALOG_STALE": "warning"])
        // Then the first fails with an error line saying how old it is and how to rebuild, copying nothing
        #expect(failing.status == 1, "\(failing.output)")
        let line = try #require(failing.output.split(separator: "\n").first { $0.hasPrefix("error: CasinoCatalog: ") })
        #expect(line.contains("ago") && line.contains("over --max-age 1d") && line.contains("make snapshot"), "\(line)")
        #expect(!copiedWhenFailing)
        // And the second warns and copies
        #expect(warning.status == 0, "\(warning.output)")
        #expect(warning.output.contains("warning: CasinoCatalog: "), "\(warning.output)")
        #expect(
            FileManager.default.fileExists(atPath: resources.appendingPathComponent("CasinoCatalog/manifest.json").path)
        )
        print(failing.output)
    }

    @Test func aBrokenOrMissingSnapshotOrNoXcodeFailsWithAnErrorLineSayingWhatToDo() async throws {
        // Given no snapshot: the phase fails naming make snapshot
        let missing = try await runPhase()
        #expect(missing.status == 1)
        #expect(missing.output.contains("error: CasinoCatalog: no snapshot directory at"), "\(missing.output)")
        // Given a snapshot whose page was truncated: the validator's problems, then the phase's own error
        try await makeSnapshot()
        let page = try #require(
            FileManager.default.subpaths(atPath: out.path)?.first { $0.contains("/games/") && $0.hasSuffix(".gz") })
        let pageURL = out.appendingPathComponent(page)
        try Data(contentsOf: pageURL).prefix(20).write(to: pageURL)
        let broken = try await runPhase()
        #expect(broken.status == 1)
        #expect(
            broken.output.contains("error: CasinoCatalog: out/\(page)") || broken.output.contains(page),
            "\(broken.output)")
        #expect(broken.output.contains("does not validate"), "\(broken.output)")
        #expect(!FileManager.default.fileExists(atPath: resources.appendingPathComponent("CasinoCatalog").path))
        // Given no Xcode variables: the phase says it runs inside Xcode
        let outside = try await runPhase(xcode: false)
        #expect(outside.status != 0)
        #expect(outside.output.contains("TARGET_BUILD_DIR is not set"), "\(outside.output)")
    }
}
