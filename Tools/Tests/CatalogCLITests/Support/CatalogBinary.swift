import Foundation
import Testing

/// The repository's root (`data/` lives there).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `catalog` executable built beside this test bundle, run as a subprocess.
enum CatalogBinary {
    struct Result {
        var status: Int32
        var standardError: String
        var standardOutput = ""
    }

    /// `catalog` in the test bundle's build directory (`swift build --build-tests` builds both).
    static let url: URL = {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, bundleDirectory, bundleDirectory.deletingLastPathComponent()]
        return candidates.map { $0.appendingPathComponent("catalog") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? bundleDirectory.appendingPathComponent("catalog")
    }()

    /// Runs `catalog arguments` in the repository's root and waits for it to exit.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Result {
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "no catalog binary at \(url.path): build it first (swift build --build-tests --package-path Tools)")
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = nil
        environment["CATALOG_SIGNING_KEY"] = nil
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let errorPipe = Pipe()
        process.standardError = errorPipe
        // Standard output goes to a file: two pipes read one after the other could each wait on the other.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-\(UUID().uuidString).out")
        try Data().write(to: outputURL)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = output
        try process.run()
        // Read before waiting: a child that fills the pipe would otherwise never exit.
        let errorData = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try output.close()
        return Result(
            status: process.terminationStatus, standardError: String(decoding: errorData, as: UTF8.self),
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self))
    }
}
