@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A CDN that never stops sending (chunked, close-delimited, a lying `Content-Length`, a gzip body
/// that inflates for ever) or trickles a byte a second: every body the updater reads is capped as it
/// streams, so each check ends with its size error at once (the deadlines here are a minute), the
/// installed generation untouched, and the peak memory of a `catalog update` child process near a
/// normal update's. The CDN is `Scripts/hostile-cdn.py`, a loopback server of the test's own.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct HostileCDNTests {
    /// What the hostile CDN does (see `Scripts/hostile-cdn.py`).
    enum Mode: String, CaseIterable, Sendable {
        case chunked, close, lie, gzip
    }

    /// Well under the one-minute deadlines: a check that got here waited for a deadline, not a size.
    static let refusedWithin: Duration = .seconds(15)

    /// What a hostile CDN sends without end: the one file the update downloads, or the manifest.
    enum Target: String, CaseIterable, Sendable {
        case file, manifest
    }

    @Test(arguments: Target.allCases, Mode.allCases)
    func aBodyThatNeverEndsIsRefusedBySizeAtOnce(_ target: Target, _ mode: Mode) async throws {
        try await PublishedSetFixture.run { fixture in
            // Given version 2 published, and a CDN that sends its changed file, or its manifest, for ever
            let changed = try publishChangedVersion(fixture)
            let hostile = target == .file ? "files/\(changed.sha256)" : SignedManifest.fileName
            let cdn = try HostileCDN(root: fixture.published, hostile: hostile, mode: mode.rawValue)
            defer { cdn.stop() }
            // When the app checks, with a minute for each request and for the update
            let started = ContinuousClock.now
            let outcome = try await fixture.launch(minuteDeadlinesAt: cdn.manifestURL).checkForUpdate()
            let elapsed = ContinuousClock.now - started
            // Then it is refused for its size at once (the file over its signed size, the manifest over
            // its cap), and nothing is installed
            guard case .refused(let error) = outcome else {
                Issue.record("expected a refusal, got \(outcome)")
                return
            }
            print("hostile CDN, \(target) \(mode): refused after \(elapsed): \(error)")
            #expect(error.code == (target == .file ? .sizeMismatch : .overLimit), "\(error)")
            #expect(elapsed < Self.refusedWithin)
            #expect(fixture.generationNames().isEmpty)
        }
    }

    @Test func aFileTrickledAByteASecondEndsAtTheRequestDeadline() async throws {
        try await PublishedSetFixture.run { fixture in
            // Given a CDN that sends the changed file one byte a second, and 2 s for each request
            let changed = try publishChangedVersion(fixture)
            let cdn = try HostileCDN(root: fixture.published, hostile: "files/\(changed.sha256)", mode: "trickle")
            defer { cdn.stop() }
            let updater = try fixture.launch(minuteDeadlinesAt: cdn.manifestURL) { $0.requestTimeout = 2 }
            // When the app checks
            let started = ContinuousClock.now
            let error = await #expect(throws: SnapshotUpdateError.self) { try await updater.checkForUpdate() }
            let elapsed = ContinuousClock.now - started
            // Then the request ends at its deadline (not the update's minute), and nothing is installed
            print("hostile CDN, file trickled: ended after \(elapsed): \(String(describing: error))")
            #expect(error?.code == .timedOut)
            #expect(elapsed >= .seconds(2) && elapsed < .seconds(2) + Self.refusedWithin)
            #expect(fixture.generationNames().isEmpty)
        }
    }

    @Test func theUpdaterInAChildProcessKeepsItsPeakMemoryNearANormalUpdatesForEveryHostileBody() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: SnapshotUpdaterKillTests.catalogBinary.path),
            "build catalog first")
        try await PublishedSetFixture.run { fixture in
            // Given version 2 published
            let changed = try publishChangedVersion(fixture)
            // When `catalog update` installs it from a CDN that behaves, in a child process
            let normal = try HostileCDN(root: fixture.published, hostile: "/nothing-is-hostile", mode: "chunked")
            let baseline = try ChildUpdate.run(fixture, manifestURL: normal.manifestURL, directory: "support-normal")
            normal.stop()
            print("catalog update, a CDN that behaves: exit \(baseline.status), peak \(baseline.peakMiB) MiB")
            #expect(baseline.status == 0, "\(baseline.output)")
            // And from CDNs that send the changed file, then the manifest, for ever
            for (target, hostile) in [("file", "files/\(changed.sha256)"), ("manifest", SignedManifest.fileName)] {
                for mode in Mode.allCases {
                    let cdn = try HostileCDN(root: fixture.published, hostile: hostile, mode: mode.rawValue)
                    defer { cdn.stop() }
                    let started = ContinuousClock.now
                    let child = try ChildUpdate.run(
                        fixture, manifestURL: cdn.manifestURL, directory: "support-\(target)-\(mode)")
                    let elapsed = ContinuousClock.now - started
                    // Then each child is refused (65) or ends over the cap (65 too: a size refusal), at
                    // once, with its peak memory within a few MiB of the normal update's
                    print(
                        "catalog update, \(target) \(mode): exit \(child.status) after \(elapsed), "
                            + "peak \(child.peakMiB) MiB (normal: \(baseline.peakMiB) MiB)")
                    #expect(child.status == 65, "\(target) \(mode): \(child.output)")
                    #expect(elapsed < Self.refusedWithin, "\(target) \(mode)")
                    #expect(
                        child.peakMiB <= baseline.peakMiB + ChildUpdate.allowanceMiB,
                        "\(target) \(mode): \(child.peakMiB) MiB against \(baseline.peakMiB) MiB")
                }
            }
        }
    }

    /// Each round is a `catalog update` process: its peak memory is its own, and a transfer
    /// FoundationNetworking could not stop (see `HTTPTransfer`) ends with it instead of slowing the
    /// next round.
    @Test func aRandomizedLoopOfHostileBodiesAndDeadlinesEndsEveryUpdateAtOnceWithinItsMemory() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: SnapshotUpdaterKillTests.catalogBinary.path),
            "build catalog first")
        let rounds = max(ProcessInfo.processInfo.environment["SOAK_ROUNDS"].flatMap(Int.init) ?? 150, 5) / 5
        let seed =
            ProcessInfo.processInfo.environment["SOAK_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        try await PublishedSetFixture.run { fixture in
            // Given version 2 published, and the peak memory of a normal update
            let changed = try publishChangedVersion(fixture)
            let normal = try HostileCDN(root: fixture.published, hostile: "/nothing-is-hostile", mode: "chunked")
            let baseline = try ChildUpdate.run(fixture, manifestURL: normal.manifestURL, directory: "support-normal")
            normal.stop()
            #expect(baseline.status == 0, "\(baseline.output)")
            var endings: [String: Int] = [:]
            var peak = 0
            for round in 1...rounds {
                // When an update runs against a CDN sending the file or the manifest in a random mode,
                // with an update deadline of 50 ms to 1 s (abandoned mid-transfer) or a minute
                let target = random.next() % 2 == 0 ? "files/\(changed.sha256)" : SignedManifest.fileName
                let mode = Mode.allCases[Int(random.next() % UInt64(Mode.allCases.count))]
                let deadline = random.next() % 3 == 0 ? 60 : Double(50 + random.next() % 950) / 1000
                let cdn = try HostileCDN(root: fixture.published, hostile: target, mode: mode.rawValue)
                let started = ContinuousClock.now
                let child = try ChildUpdate.run(
                    fixture, manifestURL: cdn.manifestURL, directory: "support-\(round)", updateTimeout: deadline)
                let elapsed = ContinuousClock.now - started
                cdn.stop()
                // Then it is refused for size (65) or ends at its deadline (75), at once, near a normal
                // update's memory, and installs nothing
                let context = "round \(round): \(target) \(mode), deadline \(deadline) s, seed \(seed)"
                endings[
                    child.status == 65 ? "refused" : child.status == 75 ? "timed out" : "exit \(child.status)",
                    default: 0] += 1
                peak = max(peak, child.peakMiB)
                #expect([65, 75].contains(child.status), "\(context): \(child.output)")
                #expect(elapsed < Self.refusedWithin, "\(context): \(elapsed)")
                #expect(
                    child.peakMiB <= baseline.peakMiB + ChildUpdate.allowanceMiB, "\(context): \(child.peakMiB) MiB")
                #expect(
                    !FileManager.default.fileExists(
                        atPath: fixture.directory.child("support-\(round)").appendingPathComponent("current.json").path),
                    "\(context)")
            }
            print(
                "hostile CDN loop, \(rounds) child updates (seed \(seed)): \(endings.sorted { $0.key < $1.key }), "
                    + "peak \(peak) MiB (a normal update: \(baseline.peakMiB) MiB)")
        }
    }

    /// Publishes the bundle's catalogue with one game renamed; returns the one file the update downloads.
    private func publishChangedVersion(_ fixture: PublishedSetFixture) throws -> PublishedManifest.File {
        try fixture.publish(fixture.changedCatalog())
        let bundled = Set(try SnapshotReader(directory: fixture.bundle.directory).manifest().files.map(\.sha256))
        return try #require(try fixture.currentPayload().files.first { !bundled.contains($0.sha256) })
    }
}

extension PublishedSetFixture {
    /// An updater reading the set at `manifestURL`, with a minute for each request and for the update.
    func launch(
        minuteDeadlinesAt manifestURL: URL, _ change: (inout SnapshotUpdater.Configuration) -> Void = { _ in }
    ) throws -> SnapshotUpdater {
        try launch { configuration in
            configuration.manifestURL = manifestURL
            configuration.requestTimeout = 60
            configuration.updateTimeout = 60
            change(&configuration)
        }
    }
}

/// `Scripts/hostile-cdn.py` serving a published set on a loopback port: the set's files as they are,
/// except `hostile`, sent in `mode`. Stopped by its PID.
final class HostileCDN {
    let process = Process()
    let manifestURL: URL
    private let input = Pipe()

    init(root: URL, hostile: String, mode: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/hostile-cdn.py")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, root.path, hostile, mode]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw CocoaError(.fileReadUnknown) }
            line += byte
        }
        let port = try #require(
            Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        manifestURL = try #require(URL(string: "http://127.0.0.1:\(port)/ota/\(SignedManifest.fileName)"))
    }

    /// SIGKILL: a child of a dispatch thread starts with SIGTERM blocked, and Python keeps the mask.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `catalog update` in a child process, its peak resident memory read by the Python that waits for it
/// (`getrusage(RUSAGE_CHILDREN)`: that child's alone).
enum ChildUpdate {
    /// How far above a normal update's peak a refused one may go: the body cap (331 bytes for a file, the
    /// 8 MiB manifest cap) plus what FoundationNetworking queues for the session's delegate before the
    /// delivery past the cap cancels the transfer.
    static let allowanceMiB = 24

    struct Result {
        var status: Int32
        var peakMiB: Int
        var output: String
    }

    static func run(
        _ fixture: PublishedSetFixture, manifestURL: URL, directory: String, updateTimeout: Double = 60
    ) throws -> Result {
        let measure = """
            import resource, subprocess, sys
            status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, status)
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c", measure, SnapshotUpdaterKillTests.catalogBinary.path, "update",
            "--manifest-url", manifestURL.absoluteString, "--public-key", fixture.key.publicKeyBase64,
            "--directory", fixture.directory.child(directory).path, "--bundle", fixture.bundle.directory.path,
            "--request-timeout", "60", "--update-timeout", "\(updateTimeout)",
        ]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let kib = Int(fields[0]), let status = Int32(fields[1]) else {
            return Result(status: -1, peakMiB: 0, output: text + String(decoding: errorText, as: UTF8.self))
        }
        return Result(
            status: status, peakMiB: (kib + 1023) / 1024,
            output: String(decoding: errorText.suffix(2000), as: UTF8.self))
    }
}
