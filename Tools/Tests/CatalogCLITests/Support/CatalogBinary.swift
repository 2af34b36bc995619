import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Runs `catalog arguments` in the repository's root and waits for it to exit, at most
    /// `deadline` (then it is killed and the test fails: a hung child must not hang the suite).
    static func run(
        _ arguments: [String], environment extra: [String: String] = [:], deadline: Duration = .seconds(240)
    ) async throws -> Result {
        try #require(
            FileManager.default.isExecutableFile(atPath: url.path),
            "no catalog binary at \(url.path): build it first (swift build --build-tests --package-path Tools)")
        var environment = ProcessInfo.processInfo.environment
        environment["SOURCE_DATE_EPOCH"] = nil
        environment["CATALOG_SIGNING_KEY"] = nil
        environment.merge(extra) { _, new in new }
        let result = try await ChildProcess.run(url, arguments, environment: environment, deadline: deadline)
        try #require(!result.timedOut, "catalog \(arguments.joined(separator: " ")) ran past \(deadline): killed")
        return Result(
            status: result.status, standardError: result.standardError, standardOutput: result.standardOutput)
    }
}

/// A child process run to its end or to a deadline: what `CatalogBinary` and `HeadlessChromium` run.
enum ChildProcess {
    struct Result {
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// Whether the deadline passed first, and the child's process group was killed.
        var timedOut: Bool
    }

    /// Runs `executable arguments` in the repository's root, its output and errors going to files
    /// (a pipe would stay open in a grandchild the child left behind, and two pipes read one after
    /// the other could each wait on the other); at `deadline` its process group is killed (Foundation
    /// starts each child in a group of its own, so a browser's helpers go with it).
    ///
    /// It waits without holding a thread: a test blocked in `waitUntilExit()` holds one of the
    /// cooperative pool's threads (two on this machine) for the child's whole run, and with two
    /// such tests every simulator in the test process, whose handlers run on that pool, stops
    /// answering: the loopback timeouts of the full parallel run.
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String], deadline: Duration
    ) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repositoryRoot
        process.environment = environment
        let scratch = FileManager.default.temporaryDirectory
        let outputURL = scratch.appendingPathComponent("child-\(UUID().uuidString).out")
        let errorURL = scratch.appendingPathComponent("child-\(UUID().uuidString).err")
        try Data().write(to: outputURL)
        try Data().write(to: errorURL)
        defer {
            try? FileManager.default.removeItem(at: outputURL)
            try? FileManager.default.removeItem(at: errorURL)
        }
        let output = try FileHandle(forWritingTo: outputURL)
        let errors = try FileHandle(forWritingTo: errorURL)
        process.standardOutput = output
        process.standardError = errors
        let watch = ChildWatch()
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in
                watch.end()
                continuation.resume()
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            // The deadline runs on a thread of its own, never behind the work it ends (a dispatch
            // timer waits for a thread of the global pool, which a busy test process can hold).
            let pid = process.processIdentifier
            let seconds = Double(deadline.components.seconds) + Double(deadline.components.attoseconds) / 1e18
            watch.watch(until: Date(timeIntervalSinceNow: seconds)) {
                let group = getpgid(pid)
                kill(group == pid ? -group : pid, SIGKILL)
            }
        }
        process.waitUntilExit()  // already ended: sets the status on every platform
        try output.close()
        try errors.close()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self),
            timedOut: watch.killed)
    }
}

/// Whether a child ended or its deadline killed it, whichever came first.
private final class ChildWatch: @unchecked Sendable {
    // @unchecked: `ended` and `wasKilled` are read and written only under `condition`.
    private let condition = NSCondition()
    private var ended = false
    private var wasKilled = false

    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits on a thread of its own until the child ends or `deadline` passes; then, unless it
    /// ended, marks it killed and runs `kill`.
    func watch(until deadline: Date, kill: @escaping @Sendable () -> Void) {
        Thread.detachNewThread { [self] in
            condition.lock()
            while !ended, condition.wait(until: deadline) {}
            wasKilled = !ended
            condition.unlock()
            if wasKilled { kill() }
        }
    }

    var killed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return wasKilled
    }
}
