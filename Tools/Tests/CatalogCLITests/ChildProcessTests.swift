import Foundation
import Testing

/// The runner every CLI test's child goes through: a child past its deadline is killed, with what
/// it started, so a hung browser cannot hang the suite.
@Suite(.timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test func aChildPastItsDeadlineIsKilledWithItsOwnChildren() throws {
        // Given a shell that starts a long sleep in the background (its duration unique to this run,
        // so it can be found) and writes its pid, then waits on another
        let duration = "40.\(UInt32.random(in: 100_000...999_999))"
        let pidFile = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: pidFile) }
        let start = ContinuousClock.now
        // When it runs with a one-second deadline
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "sleep \(duration) & echo $! > '\(pidFile.path)'; sleep 30"],
            environment: ProcessInfo.processInfo.environment, deadline: .seconds(1))
        // Then the run ends soon after the deadline, says it timed out, and the background sleep is gone
        #expect(result.timedOut)
        #expect(ContinuousClock.now - start < .seconds(10))
        let pid = try String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(Int32(pid) != nil, "the background sleep did not start")
        let survivors = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/pgrep"), ["-f", "sleep \(duration)"], environment: [:],
            deadline: .seconds(10))
        #expect(survivors.status == 1 && survivors.standardOutput.isEmpty, "still running: \(survivors.standardOutput)")
    }

    @Test func aChildThatEndsInTimeGivesItsStatusAndOutput() throws {
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "echo out; echo err >&2; exit 3"],
            environment: ProcessInfo.processInfo.environment, deadline: .seconds(30))
        #expect(!result.timedOut && result.status == 3)
        #expect(result.standardOutput == "out\n" && result.standardError == "err\n")
    }
}
