@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
public import Foundation
import Hummingbird
public import Logging
import NIOConcurrencyHelpers
@_spi(CatalogTools) import ProviderAPI
import ServiceLifecycle

/// The provider simulator: speaks the provider's casino API over real HTTP, from a recorded or
/// generated catalogue, with latency, `ETag`/`304`, and injected faults.
///
/// Tests and the demo start it on a loopback port; `catalog-server` runs it from the command line.
///
/// ```swift
/// let simulator = CatalogSimulator(catalog: try .generated(games: 500), logger: logger)
/// let base = try await simulator.start()          // http://127.0.0.1:<free port>
/// simulator.update { $0.latencyMilliseconds = [2000, 5000] }
/// simulator.statistics().count(status: 304)
/// await simulator.stop()
/// ```
///
/// Routes: `GET /v1/casino/categories`, `GET /v1/casino/games` (see `ProviderRequest`; with
/// `territory=GB` they leave out the games restricted or withdrawn there, as aggregators do),
/// `POST /v1/casino/cache/validate` (bulk validation, `CacheValidation`), and for tests
/// `GET /_stats`, `POST /_admin/settings` (a ``SimulatorSettings`` JSON), `POST /_admin/reset`,
/// `POST /_admin/bump` (a new catalogue version; answers the push payload that announces it),
/// published snapshot sets under `/ota` (`CatalogSimulator+Published.swift`), the catalogue's
/// images under `/images` (`CatalogSimulator+Images.swift`), and the player's own rows under
/// `/v1/player` (`CatalogSimulator+Player.swift`), and the withdrawal list
/// (`CatalogSimulator+Withdrawals.swift`).
public final class CatalogSimulator: Sendable {
    let catalog: SimulatedCatalog
    private let logger: Logger
    let state: NIOLockedValueBox<State>
    /// The published snapshot set served under `/ota` (`CatalogSimulator+Published.swift`).
    let published = NIOLockedValueBox(PublishedState())
    /// Sessions, favourites and recently played games (`CatalogSimulator+Player.swift`).
    let players = NIOLockedValueBox(PlayerState())
    /// The provider's withdrawal list (`CatalogSimulator+Withdrawals.swift`).
    let withdrawalList = NIOLockedValueBox<WithdrawalList?>(nil)

    struct State {
        var settings: SimulatorSettings
        var statistics = SimulatorStatistics()
        var faultUses: [Int: Int] = [:]
        var random: SplitMix64
        var server: Task<Void, any Error>?
        var serviceGroup: ServiceGroup?
        var baseURL: URL?
    }

    public init(catalog: SimulatedCatalog, settings: SimulatorSettings = SimulatorSettings(), logger: Logger) {
        self.catalog = catalog
        self.logger = logger
        state = NIOLockedValueBox(State(settings: settings, random: SplitMix64(seed: settings.seed)))
    }

    /// The running server's base URL (`http://127.0.0.1:54321`), or `nil` when stopped.
    public var baseURL: URL? { state.withLockedValue { $0.baseURL } }

    /// Changes the settings at run time.
    public func update(_ change: (inout SimulatorSettings) -> Void) {
        state.withLockedValue { state in
            change(&state.settings)
            state.faultUses = [:]
        }
    }

    /// The current settings.
    public var settings: SimulatorSettings { state.withLockedValue { $0.settings } }

    /// What has been served since the start (or the last reset).
    public func statistics() -> SimulatorStatistics { state.withLockedValue { $0.statistics } }

    /// Forgets the statistics.
    public func resetStatistics() { state.withLockedValue { $0.statistics = SimulatorStatistics() } }

    /// Starts serving in the background.
    ///
    /// - Parameters:
    ///   - host: The address to bind: loopback by default.
    ///   - port: The port, or 0 for any free one.
    /// - Returns: The base URL of the running server.
    public func start(host: String = "127.0.0.1", port: Int = 0) async throws -> URL {
        let application = makeApplication(host: host, port: port) { [state] port in
            state.withLockedValue { $0.baseURL = URL(string: "http://\(host):\(port)") }
        }
        let group = ServiceGroup(configuration: .init(services: [application], logger: logger))
        let task = Task { try await group.run() }
        state.withLockedValue {
            $0.server = task
            $0.serviceGroup = group
        }
        for _ in 0..<2000 {
            if let url = baseURL { return url }
            if task.isCancelled { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        await stop()
        throw SimulatorError("the simulator did not start on \(host):\(port)")
    }

    /// Stops serving: the port closes, and requests in flight and connections already accepted
    /// are served or closed before it returns.
    ///
    /// A graceful shutdown, not a cancellation: cancelling a Hummingbird server drops connections
    /// it has accepted but not yet handled, and NIO traps on them ("Deinited NIOAsyncWriter without
    /// calling finish()", swift-server/swift-http-server#137), which crashed a test process now and
    /// then when a client connected just as its test stopped the server.
    public func stop() async {
        let (task, group) = state.withLockedValue { state -> (Task<Void, any Error>?, ServiceGroup?) in
            defer {
                state.server = nil
                state.serviceGroup = nil
                state.baseURL = nil
            }
            return (state.server, state.serviceGroup)
        }
        await group?.triggerGracefulShutdown()
        _ = await task?.result
    }

    /// Serves until the task is cancelled, printing nothing but logs: what `catalog-server` runs.
    public func run(host: String, port: Int, onStart: @escaping @Sendable (URL) -> Void) async throws {
        let application = makeApplication(host: host, port: port) { port in
            onStart(URL(string: "http://\(host):\(port)")!)
        }
        try await application.runService()
    }

    // MARK: - Routes

    private func makeApplication(
        host: String, port: Int, onStart: @escaping @Sendable (Int) -> Void
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get(RouterPath(stringLiteral: ProviderRequest.categoriesPath)) { request, _ in
            await self.serveAPI(request)
        }
        router.get(RouterPath(stringLiteral: ProviderRequest.gamesPath)) { request, _ in
            await self.serveAPI(request)
        }
        router.post(RouterPath(stringLiteral: CacheValidation.path)) { request, _ in
            await self.serveValidation(request)
        }
        router.post("/_admin/bump") { _, _ in
            Self.json(try self.bumpVersion())
        }
        router.get("/_stats") { _, _ in
            Self.json(try JSONEncoder().encode(self.statistics()))
        }
        router.post("/_admin/settings") { request, _ in
            let body = try await request.body.collect(upTo: 1 << 20)
            let settings: SimulatorSettings
            do {
                settings = try JSONDecoder().decode(SimulatorSettings.self, from: Data(String(buffer: body).utf8))
            } catch {
                return Self.failure(status: 400, message: "not SimulatorSettings JSON: \(error)")
            }
            if let problem = settings.problem { return Self.failure(status: 400, message: problem) }
            self.update { $0 = settings }
            return Self.json(try JSONEncoder().encode(settings))
        }
        router.post("/_admin/reset") { _, _ in
            self.resetStatistics()
            return Response(status: .noContent)
        }
        addPublishedRoutes(to: router)
        addImageRoutes(to: router)
        addPlayerRoutes(to: router)
        addWithdrawalRoutes(to: router)
        var logger = self.logger
        logger.logLevel = min(logger.logLevel, .info)
        return Application(
            router: router,
            configuration: .init(address: .hostname(host, port: port), serverName: "catalog-server"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { onStart(port) }
            },
            logger: logger)
    }

    private func serveAPI(_ request: Request) async -> Response {
        let path = request.uri.path
        let query = request.uri.query ?? ""
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { parameters[String(name)] = String(value) }
        let (settings, fault, delay, randomStatus) = decide(path: path, query: query)
        if delay > 0 { try? await Self.pause(milliseconds: delay) }

        let response: Response
        if let status = fault?.kind == .status ? (fault?.status ?? 500) : randomStatus {
            response = Self.failure(status: status, retryAfter: settings.retryAfterSeconds)
        } else {
            do {
                let providerRequest = try ProviderRequest(path: path, parameters: parameters)
                let territory = try parameters["territory"].map { code in
                    guard let territory = CatalogRules.territoryCode(code) else {
                        throw ProviderRequest.ParseError(
                            "territory must be an ISO 3166 code such as GB or CA-ON, got '\(code.prefix(20))'")
                    }
                    return territory
                }
                let body = try body(for: providerRequest, version: settings.version, territory: territory)
                response = respond(
                    body, to: request, maxAge: settings.maxAgeSeconds, fault: fault)
            } catch {
                response = Self.failure(status: 400, message: "\(error)")
            }
        }
        count(response, path: path)
        return response
    }

    /// Counts a served answer in the statistics.
    func count(_ response: Response, path: String) {
        state.withLockedValue { state in
            state.statistics.requests[path, default: 0] += 1
            state.statistics.statuses[String(response.status.code), default: 0] += 1
            state.statistics.bodyBytes += response.body.contentLength ?? 0
        }
    }

    /// The fault, delay and random failure for one request, decided under the lock.
    func decide(path: String, query: String) -> (SimulatorSettings, SimulatorSettings.Fault?, Int, Int?) {
        state.withLockedValue { state in
            let settings = state.settings
            var fault: SimulatorSettings.Fault?
            for (index, candidate) in settings.faults.enumerated() {
                guard candidate.path.map(path.contains) ?? true, candidate.query.map(query.contains) ?? true else {
                    continue
                }
                let used = state.faultUses[index, default: 0]
                if let count = candidate.count, used >= count { continue }
                state.faultUses[index] = used + 1
                fault = candidate
                break
            }
            let bounds = settings.latencyMilliseconds
            var delay = bounds.first ?? 0
            if bounds.count >= 2, bounds[1] > bounds[0] {
                delay = bounds[0] + Int(state.random.next() % UInt64(bounds[1] - bounds[0] + 1))
            }
            var status: Int?
            if fault == nil {
                let roll = Double(state.random.next() % 1_000_000) / 1_000_000
                if roll < settings.errorRate {
                    status = state.random.next() % 2 == 0 ? 500 : 503
                } else if roll < settings.errorRate + settings.rateLimitRate {
                    status = 429
                }
            }
            return (settings, fault, delay, status)
        }
    }

    /// The JSON body for a request at the catalogue's current version; a request naming a
    /// `territory` is answered as an aggregator does, without the games restricted or withdrawn there.
    func body(for request: ProviderRequest, version: Int, territory: String? = nil) throws -> Data {
        let current = catalog.changed(toVersion: version)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var content = current.editions[request.edition] else {
            return try encoder.encode(Envelope(count: 0, total: 0, items: [], pages: nil))
        }
        if let territory { content = current.content(content, in: territory, withdrawals: withdrawals) }
        switch request {
        case .categories:
            return try encoder.encode(
                Envelope(
                    count: content.categories.count, total: content.categories.count, items: content.categories,
                    pages: nil))
        case .gamesPage(let edition, let categoryId, let offset, let limit):
            let games = content.games[categoryId] ?? []
            let total = current.total(of: categoryId, in: content)
            // `offset` and `limit` are parsed within CatalogRules' bounds, so their sum cannot overflow.
            let items = offset < games.count ? Array(games[offset..<min(offset + limit, games.count)]) : []
            func link(_ offset: Int) -> String {
                ProviderRequest.gamesPage(edition, categoryId: categoryId, offset: offset, limit: limit).description
            }
            let pages = Envelope.Pages(
                first: link(0), next: offset + limit < total ? link(offset + limit) : nil,
                previous: offset > 0 ? link(max(offset - limit, 0)) : nil,
                last: link(max(total - 1, 0) / limit * limit))
            return try encoder.encode(Envelope(count: items.count, total: total, items: items, pages: pages))
        }
    }

    /// A `200` with a strong ETag, or a `304` when the client already has it; faults applied.
    func respond(_ body: Data, to request: Request, maxAge: Int, fault: SimulatorSettings.Fault?) -> Response {
        let etag = Self.etag(of: body)
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "max-age=\(maxAge)"]
        if fault == nil, let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = "application/json"
        let bytes = [UInt8](body)
        switch fault?.kind {
        case .malformed:
            let broken = Array(bytes.prefix(max(bytes.count / 2, 1))) + Array("<<not json".utf8)
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: broken)))
        case .truncated:
            let half = ByteBuffer(bytes: bytes.prefix(bytes.count / 2))
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(contentLength: bytes.count) { writer in
                    try await writer.write(half)
                    throw SimulatorError("truncated on purpose")
                })
        case .stall:
            let milliseconds = fault?.milliseconds ?? 60_000
            let first = ByteBuffer(bytes: bytes.prefix(bytes.count / 2))
            let rest = ByteBuffer(bytes: bytes.dropFirst(bytes.count / 2))
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(contentLength: bytes.count) { writer in
                    try await writer.write(first)
                    try await Self.pause(milliseconds: milliseconds)
                    try await writer.write(rest)
                    try await writer.finish(nil)
                })
        case .body:
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: fault?.body ?? "")))
        case .longer:
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(bytes: bytes + Array("0123456789".utf8))))
        case .shorter:
            return Response(
                status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes.dropLast(10))))
        case .flipped:
            var flipped = bytes
            if !flipped.isEmpty { flipped[flipped.count / 2] ^= 0xFF }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: flipped)))
        case .oversized:
            let announced = 1 << 31
            let chunk = ByteBuffer(repeating: 0x20, count: 64 << 10)
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody(contentLength: announced) { writer in
                    var sent = 0
                    while sent < announced {
                        try await writer.write(chunk)
                        sent += chunk.readableBytes
                    }
                    try await writer.finish(nil)
                })
        default:
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    /// The strong ETag of a body: a quoted prefix of its SHA-256.
    static func etag(of body: Data) -> String {
        "\"" + String(FileNaming.hexSHA256(body).prefix(32)) + "\""
    }

    /// Sleeps for simulated latency or a stall, ending early when the server shuts down, so
    /// ``stop()`` does not wait out a 60-second stall.
    static func pause(milliseconds: Int) async throws {
        try await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(milliseconds)) }
    }

    static func failure(status: Int, retryAfter: Int = 1, message: String? = nil) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if status == 429 { headers[.retryAfter] = String(retryAfter) }
        let body = (try? JSONEncoder().encode(["error": message ?? "simulated \(status)"])) ?? Data()
        return Response(
            status: HTTPResponse.Status(code: status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    static func json(_ data: Data) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The provider's collection envelope.
    private struct Envelope: Encodable {
        var count: Int
        var total: Int
        var items: [JSONValue]
        var pages: Pages?

        struct Pages: Encodable {
            var first: String?
            var next: String?
            var previous: String?
            var last: String?

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(first, forKey: .first)
                try container.encode(next, forKey: .next)
                try container.encode(previous, forKey: .previous)
                try container.encode(last, forKey: .last)
            }

            enum CodingKeys: String, CodingKey { case first, next, previous, last }
        }
    }
}

/// Why the simulator could not start or answer.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
