@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The HTTP upstream against a server of the test's own (`Scripts/hostile-cdn.py`) that never stops
/// sending or trickles: every answer is capped as it streams, so a call ends with its size error at
/// once (the timeout here is a minute), or at its timeout for a trickle.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct ProviderHTTPUpstreamCapTests {
    static let edition = try! Edition(language: "en", platform: .iPhone)

    @Test(arguments: ["chunked", "close", "lie", "gzip"])
    func anAnswerThatNeverEndsIsRefusedForItsSizeAtOnce(_ mode: String) async throws {
        // Given an API whose categories answer is `mode` for ever, and a 64 KiB cap
        let server = try HostileServer(hostile: "categories", mode: mode)
        defer { server.stop() }
        let upstream = ProviderHTTPUpstream(
            configuration: .init(baseURL: server.base, timeout: 60, maxResponseBytes: 64 << 10))
        // When the cache asks for the categories
        let started = ContinuousClock.now
        let error = await #expect(throws: UpstreamError.self) {
            _ = try await upstream.categories(edition: Self.edition, etag: nil)
        }
        let elapsed = ContinuousClock.now - started
        // Then the answer is refused for its size, long before the minute
        print("provider upstream, \(mode) for ever: \(elapsed): \(String(describing: error))")
        #expect(error?.code == .invalidResponse)
        #expect(error?.message.contains("larger than 65536 bytes") == true, "\(String(describing: error))")
        #expect(elapsed < .seconds(15))
    }

    /// A server per round, stopped after it: on Linux a transfer from a server that never stops may read
    /// on after its cancellation (see `HTTPTransfer`), and would slow the rounds after it.
    @Test func aRandomizedLoopOfEndlessAnswersCapsAndCancellationsEndsEveryCallAtOnce() async throws {
        let modes = ["chunked", "close", "lie", "gzip"]
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        var endings: [String: Int] = [:]
        for round in 1...40 {
            // Given a server sending a random endless answer, and a cap of 1 KiB to 4 MiB
            let mode = modes[Int(random.next() % UInt64(modes.count))]
            let cap = 1 << (10 + Int(random.next() % 13))
            let cancelAfter = random.next() % 3 == 0 ? Int(random.next() % 200) : nil
            let server = try HostileServer(hostile: "categories", mode: mode)
            defer { server.stop() }
            let upstream = ProviderHTTPUpstream(
                configuration: .init(baseURL: server.base, timeout: 60, maxResponseBytes: cap))
            // When the cache asks, cancelled after 0-200 ms or never
            let started = ContinuousClock.now
            let call = Task { try await upstream.categories(edition: Self.edition, etag: nil) }
            if let cancelAfter {
                try await Task.sleep(for: .milliseconds(cancelAfter))
                call.cancel()
            }
            let ending: String
            switch await call.result {
            case .failure(let error as UpstreamError) where error.message.contains("larger than"): ending = "too large"
            case .failure(is CancellationError): ending = "cancelled"
            case .failure(let error): ending = "unexpected \(error)"
            case .success: ending = "unexpected success"
            }
            let elapsed = ContinuousClock.now - started
            endings[ending, default: 0] += 1
            // Then it ends by size or by its cancellation, long before the minute
            let context = "round \(round), \(mode), cap \(cap), seed \(seed)"
            #expect(ending == "too large" || ending == "cancelled", "\(context): \(ending)")
            #expect(elapsed < .seconds(15), "\(context): \(elapsed)")
        }
        print("provider upstream loop, 40 rounds (seed \(seed)): \(endings.sorted { $0.key < $1.key })")
    }

    @Test func anAnswerTrickledAByteASecondEndsAtTheTimeout() async throws {
        // Given an API that sends its answer one byte a second, and a 1 s timeout
        let server = try HostileServer(hostile: "categories", mode: "trickle")
        defer { server.stop() }
        let upstream = ProviderHTTPUpstream(configuration: .init(baseURL: server.base, timeout: 1))
        // When the cache asks, Then the call times out at 1 s (a hang detector: 15 s more)
        let started = ContinuousClock.now
        let error = await #expect(throws: UpstreamError.self) {
            _ = try await upstream.categories(edition: Self.edition, etag: nil)
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .timedOut)
        #expect(elapsed >= .seconds(1) && elapsed < .seconds(16))
    }
}

/// `Scripts/hostile-cdn.py` on a loopback port, serving nothing but `hostile` (in `mode`); stopped by
/// its PID.
final class HostileServer {
    let base: URL
    private let process = Process()
    private let input = Pipe()

    init(hostile: String, mode: String) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/hostile-cdn.py")
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, FileManager.default.temporaryDirectory.path, hostile, mode]
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
        base = try #require(URL(string: "http://127.0.0.1:\(port)"))
    }

    /// SIGKILL: a child of a dispatch thread starts with SIGTERM blocked, and Python keeps the mask.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
