import Foundation
import Testing

/// The runner every CLI test's child goes through: a child past its deadline is killed, with what
/// it started, so a hung browser cannot hang the suite.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test func aChildPastItsDeadlineIsKilledWithItsOwnChildren() async throws {
        // Given a shell that starts a long sleep in the background (its duration unique to this run,
        // so it can be found) and writes its pid, then waits on another
        let duration = "40.\(UInt32.random(in: 100_000...999_999))"
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let start = ContinuousClock.now
        // When it runs with a one-second deadline
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep \(duration) & echo $! > '\(pidFile.path)'; sleep 30"],
            environment: ProcessInfo.processInfo.environment, deadline: .seconds(1))
        // Then the run ends soon after the deadline, says it timed out, and the background sleep is gone
        #expect(result.timedOut)
        #expect(ContinuousClock.now - start < .seconds(10))
        let pid = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int32(pid) != nil, "the background sleep did not start")
        let survivors = try await ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "sleep \(duration)"], environment: [:],
            deadline: .seconds(10))
        #expect(survivors.status == 1 && survivors.standardOutput.isEmpty, "still running: \(survivors.standardOutput)")
    }

    @Test func aChildThatEndsInTimeGivesItsStatusAndOutput() async throws {
        let result = try await ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo out; echo err >&2; exit 3"],
            environment: ProcessInfo.processInfo.environment, deadline: .seconds(30))
        #expect(!result.timedOut && result.status == 3)
        #expect(result.standardOutput == "out\n" && result.standardError == "err\n")
    }

    @Test func childrenRunningHoldNoThreadOfTheTestProcess() async throws {
        // Given more children than the cooperative pool has threads, each running five seconds
        let started = ContinuousClock.now
        let children = ProcessInfo.processInfo.activeProcessorCount + 2
        // When a task sleeps a tenth of a second while they run
        async let probe: ContinuousClock.Instant = {
            try await Task.sleep(for: .milliseconds(100))
            return ContinuousClock.now
        }()
        let ends = try await withThrowingTaskGroup(of: ContinuousClock.Instant.self) { group in
            for _ in 0..<children {
                group.addTask {
                    let result = try await ChildProcess.run(
                        URL(fileURLWithPath: "/bin/sleep"), ["5"], environment: [:], deadline: .seconds(60))
                    #expect(!result.timedOut && result.status == 0)
                    return ContinuousClock.now
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then it wakes while they still run: waiting for a child holds no thread (a blocked pool
        // would stop every loopback simulator of the test process too)
        let woke = try await probe
        #expect(
            woke < ends.min()!,
            "woke \(woke - started) after the start, the first child ended after \(ends.min()! - started)")
    }
}
