import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging

/// `catalog-demo`: five app sessions, live: a provider simulator answering in 2–5 s, an app
/// that ships a snapshot, and a cache that makes the lobby appear at once in every session.
@main
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-demo",
        abstract: "Play five app sessions against the provider simulator and print what the user saw.",
        discussion: """
            Starts the provider simulator on a loopback port (a generated catalogue, version 1), builds
            the app's bundled snapshot from that catalogue with the pipeline, moves the provider on to
            version 2, then plays five app sessions with a real cache directory and a manual clock:
            first launch, relaunch within the time to live, relaunch after it (the provider at version 3),
            the provider stopped, and the provider back.

            Example: catalog-demo --latency 2000-5000 --games 400
            """)

    @Option(help: "The simulator's delay before each answer in milliseconds: N, or MIN-MAX.")
    var latency = LatencyRange(lower: 2000, upper: 5000)

    @Option(help: "Games in the generated catalogue.")
    var games = 200

    @Option(help: "Non-empty categories in the generated catalogue.")
    var categories = 4

    @Flag(help: "Keep the working directory (recording, bundle, cache) and print where it is.")
    var keep = false

    @Flag(help: "Log the cache, the upstream and the simulator at debug level to standard error.")
    var verbose = false

    func validate() throws {
        guard games > 0, categories > 0 else { throw ValidationError("--games and --categories must be positive") }
        guard categories <= games else { throw ValidationError("--categories cannot exceed --games") }
    }

    func run() async throws {
        var logger = Logger(label: "catalog-demo") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = verbose ? .debug : .warning
        let story = DemoStory(games: games, categories: categories, latency: latency, keepsFiles: keep, logger: logger)
        let report = try await story.run()
        print(report.rendered())
    }
}

/// A delay in milliseconds, fixed (`300`) or picked at random in a range (`2000-5000`).
struct LatencyRange: ExpressibleByArgument, CustomStringConvertible, Sendable {
    var lower: Int
    var upper: Int

    init(lower: Int, upper: Int) {
        self.lower = lower
        self.upper = upper
    }

    init?(argument: String) {
        let parts = argument.split(separator: "-", omittingEmptySubsequences: false).map {
            Int($0.trimmingCharacters(in: .whitespaces))
        }
        switch parts.count {
        case 1:
            guard let value = parts[0], value >= 0 else { return nil }
            self.init(lower: value, upper: value)
        case 2:
            guard let lower = parts[0], let upper = parts[1], lower >= 0, upper >= lower else { return nil }
            self.init(lower: lower, upper: upper)
        default: return nil
        }
    }

    var description: String { lower == upper ? "\(lower)" : "\(lower)-\(upper)" }

    /// As ``SimulatorSettings/latencyMilliseconds``.
    var milliseconds: [Int] { lower == upper ? [lower] : [lower, upper] }
}
