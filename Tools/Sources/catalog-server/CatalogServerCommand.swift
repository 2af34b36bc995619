import ArgumentParser
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import Logging

/// `catalog-server`: the provider simulator, from a recording or a generated catalogue.
@main
struct CatalogServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog-server",
        abstract: "Serve the provider's casino API from recorded or generated data, with latency and faults.",
        discussion: """
            Routes: GET /v1/casino/categories, GET /v1/casino/games (the provider's query syntax),
            POST /v1/casino/cache/validate (bulk validation), GET /ota/manifest.json and
            GET /ota/files/<sha256> (a published snapshot set, with --published), GET /_stats
            (requests per route and status), POST /_admin/settings (SimulatorSettings JSON: latency,
            error rates, faults, catalogue version), POST /_admin/reset, POST /_admin/bump (a new
            catalogue version; answers its push payload), POST /_admin/published (another set).

            Example: catalog-server --games 2000 --latency 2000-5000 --error-rate 0.1
            """)

    @Option(help: "A recorded provider directory to serve.")
    var recording: String?

    @Option(help: "Serve a generated catalogue of this many games instead of a recording.")
    var games: Int?

    @Option(help: "The address to bind.")
    var host = "127.0.0.1"

    @Option(help: "The port (0 picks a free one).")
    var port = 8080

    @Option(help: "Delay before each answer in milliseconds: N, or MIN-MAX.")
    var latency = "0"

    @Option(help: "Share of API requests answered 500/503 at random (0...1).")
    var errorRate = 0.0

    @Option(help: "Share of API requests answered 429 with Retry-After at random (0...1).")
    var rateLimitRate = 0.0

    @Option(help: "Seed for latency and fault choices.")
    var seed: UInt64 = 2026

    @Option(help: "A published snapshot set (catalog publish) to serve under /ota.")
    var published: String?

    func validate() throws {
        guard (recording == nil) != (games == nil) else {
            throw ValidationError("pass exactly one of --recording DIR or --games N")
        }
        guard latencyRange != nil else { throw ValidationError("--latency must be N or MIN-MAX milliseconds") }
        if let problem = settings.problem { throw ValidationError(problem) }
    }

    private var settings: SimulatorSettings {
        var settings = SimulatorSettings()
        settings.latencyMilliseconds = latencyRange ?? [0]
        settings.errorRate = errorRate
        settings.rateLimitRate = rateLimitRate
        settings.seed = seed
        return settings
    }

    private var latencyRange: [Int]? {
        let parts = latency.split(separator: "-").map { Int($0) }
        guard !parts.isEmpty, parts.count <= 2, parts.allSatisfy({ ($0 ?? -1) >= 0 }) else { return nil }
        return parts.compactMap { $0 }
    }

    func run() async throws {
        let logger = Logger(label: "catalog-server")
        let catalog =
            if let recording {
                try SimulatedCatalog.load(recording: URL(fileURLWithPath: recording))
            } else {
                try SimulatedCatalog.generated(games: games ?? 0)
            }
        let simulator = CatalogSimulator(catalog: catalog, settings: settings, logger: logger)
        if let published { simulator.servePublishedSet(at: URL(fileURLWithPath: published)) }
        try await simulator.run(host: host, port: port) { url in
            logger.info("serving the provider API", metadata: ["server.url": "\(url)"])
        }
    }
}
