import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
@_spi(CatalogTools) import ProviderAPI
import Testing

/// The simulator over real HTTP on loopback, checked with a real client.
@Suite(.timeLimit(.minutes(5)))  // hang detectors: a busy machine takes minutes
struct CatalogSimulatorTests {
    static let logger = Logger(label: "simulator-tests") { _ in SwiftLogNoOpLogHandler() }
    let edition = try! Edition(id: "en-iPhone")

    /// Starts a simulator over a small generated catalogue, runs `body`, and stops it.
    func withSimulator(
        settings: SimulatorSettings = SimulatorSettings(), _ body: (CatalogSimulator, URL) async throws -> Void
    ) async throws {
        let simulator = CatalogSimulator(
            catalog: try .generated(games: 60, categories: 3), settings: settings, logger: Self.logger)
        let base = try await simulator.start()
        do {
            try await body(simulator, base)
        } catch {
            await simulator.stop()
            throw error
        }
        await simulator.stop()
    }

    /// The default settings changed by `change`.
    func configured(_ change: (inout SimulatorSettings) -> Void) -> SimulatorSettings {
        var settings = SimulatorSettings()
        change(&settings)
        return settings
    }

    struct Answer {
        var status: UInt
        var headers: HTTPHeaders
        var body: Data
    }

    func get(_ url: URL, headers: [(String, String)] = []) async throws -> Answer {
        var request = HTTPClientRequest(url: url.absoluteString)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 16 << 20)
        return Answer(status: response.status.code, headers: response.headers, body: Data(buffer: body))
    }

    struct Envelope: Decodable {
        var count: Int
        var total: Int
        var items: [ProviderGame]
        var pages: ProviderCollection<ProviderGame>.Pages?
    }

    @Test func servesPagesInTheProviderEnvelopeWithLinks() async throws {
        try await withSimulator { _, base in
            // Given the categories
            let categoriesAnswer = try await get(ProviderRequest.categories(edition).url(relativeTo: base))
            let categories = try JSONDecoder().decode(
                ProviderCollection<ProviderCategory>.self, from: categoriesAnswer.body)
            let category = try #require(categories.items?.first { ($0.games?.total ?? 0) > 10 })
            let id = try #require(category.id?.text)
            let total = try #require(category.games?.total)
            // When the second page is asked for
            let request = ProviderRequest.gamesPage(edition, categoryId: id, offset: 10, limit: 10)
            let answer = try await get(request.url(relativeTo: base))
            let page = try JSONDecoder().decode(Envelope.self, from: answer.body)
            // Then it holds positions 10..<20 of the category, with the provider's links
            #expect(answer.status == 200)
            #expect(page.total == total)
            #expect(page.count == min(10, total - 10))
            #expect(page.items.count == page.count)
            #expect(page.pages?.previous?.contains("offset=0,limit=10") == true)
            #expect((page.pages?.next != nil) == (20 < total))
            #expect(answer.headers.first(name: "Cache-Control") == "max-age=60")
        }
    }

    @Test func answersNotModifiedForAMatchingETag() async throws {
        try await withSimulator { simulator, base in
            let url = ProviderRequest.categories(edition).url(relativeTo: base)
            let first = try await get(url)
            let etag = try #require(first.headers.first(name: "ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
            let second = try await get(url, headers: [("If-None-Match", etag)])
            #expect(second.status == 304)
            #expect(second.body.isEmpty)
            let stale = try await get(url, headers: [("If-None-Match", "\"other\"")])
            #expect(stale.status == 200)
            #expect(simulator.statistics().count(status: 304) == 1)
        }
    }

    @Test func aNewVersionChangesTheContentAndTheETag() async throws {
        try await withSimulator { simulator, base in
            let category = try await firstCategory(base)
            let url = ProviderRequest.gamesPage(edition, categoryId: category, offset: 0, limit: 10).url(
                relativeTo: base)
            let before = try await get(url)
            simulator.update { $0.version = 2 }
            let after = try await get(url, headers: [("If-None-Match", before.headers.first(name: "ETag") ?? "")])
            #expect(after.status == 200)
            #expect(after.headers.first(name: "ETag") != before.headers.first(name: "ETag"))
            let page = try JSONDecoder().decode(Envelope.self, from: after.body)
            #expect(page.items.allSatisfy { $0.name?.hasSuffix(" v2") == true })
        }
    }

    @Test func injectsFaultsForMatchingRequestsThenRecovers() async throws {
        try await withSimulator(
            settings: configured { settings in
                settings.retryAfterSeconds = 7
                settings.faults = [
                    .init(kind: .status, path: "/categories", count: 1, status: 503),
                    .init(kind: .status, query: "offset=10", count: 1, status: 429),
                    .init(kind: .malformed, query: "offset=20", count: 1),
                ]
            }
        ) { simulator, base in
            let categories = ProviderRequest.categories(edition).url(relativeTo: base)
            #expect(try await get(categories).status == 503)
            #expect(try await get(categories).status == 200)
            let category = try await firstCategory(base)
            let limited = try await get(
                ProviderRequest.gamesPage(edition, categoryId: category, offset: 10, limit: 10).url(relativeTo: base))
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "Retry-After") == "7")
            let malformed = try await get(
                ProviderRequest.gamesPage(edition, categoryId: category, offset: 20, limit: 10).url(relativeTo: base))
            #expect(malformed.status == 200)
            #expect((try? JSONDecoder().decode(Envelope.self, from: malformed.body)) == nil)
            let statistics = simulator.statistics()
            #expect(statistics.count(status: 503) == 1 && statistics.count(status: 429) == 1)
            #expect(statistics.requests[ProviderRequest.gamesPath] == 2)
        }
    }

    @Test func truncatesABodyByClosingTheConnection() async throws {
        try await withSimulator(
            settings: configured { $0.faults = [.init(kind: .truncated, path: "/categories", count: 1)] }
        ) {
            _, base in
            let url = ProviderRequest.categories(edition).url(relativeTo: base)
            await #expect(throws: (any Error).self) { _ = try await get(url) }
            let status = try await get(url).status
            #expect(status == 200)
        }
    }

    @Test func delaysAnswersByTheConfiguredLatency() async throws {
        try await withSimulator(settings: configured { $0.latencyMilliseconds = [150, 200] }) { _, base in
            let start = ContinuousClock.now
            _ = try await get(ProviderRequest.categories(edition).url(relativeTo: base))
            #expect(ContinuousClock.now - start >= .milliseconds(150))
        }
    }

    @Test func stallsABodyMidway() async throws {
        try await withSimulator(
            settings: configured {
                $0.faults = [.init(kind: .stall, path: "/categories", count: 1, milliseconds: 300)]
            }
        ) { _, base in
            let start = ContinuousClock.now
            let answer = try await get(ProviderRequest.categories(edition).url(relativeTo: base))
            #expect(answer.status == 200)
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect((try? JSONDecoder().decode(ProviderCollection<ProviderCategory>.self, from: answer.body)) != nil)
        }
    }

    @Test func changesSettingsAndReportsStatisticsOverHTTP() async throws {
        try await withSimulator { _, base in
            var request = HTTPClientRequest(url: base.appendingPathComponent("_admin/settings").absoluteString)
            request.method = .POST
            var settings = SimulatorSettings()
            settings.faults = [.init(kind: .status, count: 1, status: 500)]
            request.body = .bytes(try JSONEncoder().encode(settings))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(try await get(ProviderRequest.categories(edition).url(relativeTo: base)).status == 500)
            let stats = try await get(base.appendingPathComponent("_stats"))
            let statistics = try JSONDecoder().decode(SimulatorStatistics.self, from: stats.body)
            #expect(statistics.count(status: 500) == 1)
            #expect(statistics.requests[ProviderRequest.categoriesPath] == 1)
        }
    }

    @Test func acceptsPartialSettingsOverHTTP() async throws {
        try await withSimulator { simulator, base in
            var request = HTTPClientRequest(url: base.appendingPathComponent("_admin/settings").absoluteString)
            request.method = .POST
            request.body = .bytes(Data(#"{"version": 2}"#.utf8))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
            #expect(response.status == .ok)
            #expect(simulator.settings.version == 2)
            #expect(simulator.settings.maxAgeSeconds == 60)
        }
    }

    @Test func refusesARequestItCannotParse() async throws {
        try await withSimulator { _, base in
            let url = URL(string: base.absoluteString + "/v1/casino/games?language=en&platform=iPhone")!
            let status = try await get(url).status
            #expect(status == 400)
        }
    }

    @Test func servesARecordingVerbatim() async throws {
        // Given the embedded recording
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let simulator = CatalogSimulator(
            catalog: try .load(recording: root.appendingPathComponent("data/provider")), logger: Self.logger)
        let base = try await simulator.start()
        defer { Task { await simulator.stop() } }
        // When its VIDEOSLOTS first page is asked for
        let answer = try await get(
            ProviderRequest.gamesPage(edition, categoryId: "VIDEOSLOTS", offset: 0, limit: 10).url(relativeTo: base))
        let served = try JSONDecoder().decode(ProviderCollection<ProviderGame>.self, from: answer.body)
        // Then the items are the recorded ones, quirks included
        let recordedURL = root.appendingPathComponent("data/provider/en-iPhone/games/videoslots-d4a8b457ac/0.json")
        let recorded = try JSONDecoder().decode(
            ProviderCollection<ProviderGame>.self, from: Data(contentsOf: recordedURL))
        #expect(served.items == recorded.items)
        #expect(served.total == 133)
        await simulator.stop()
    }

    /// The first 100 games of category `id` as raw objects, and the page's `total`, as served to a
    /// request naming `territory` (or none).
    func rawGames(_ base: URL, _ id: String, territory: String?) async throws -> (total: Int, items: [[String: Any]]) {
        let url = ProviderRequest.gamesPage(edition, categoryId: id, offset: 0, limit: 100).url(relativeTo: base)
        let answer = try await get(URL(string: url.absoluteString + (territory.map { "&territory=\($0)" } ?? ""))!)
        #expect(answer.status == 200)
        let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        return (try #require(object["total"] as? Int), try #require(object["items"] as? [[String: Any]]))
    }

    /// A raw game object's id: a string, or an integer (a quirk the provider has).
    static func gameID(_ game: [String: Any]) -> String? {
        (game["id"] as? String) ?? (game["id"] as? Int).map(String.init)
    }

    @Test func aRequestNamingATerritoryLeavesOutTheGamesRestrictedOrWithdrawnThere() async throws {
        try await withSimulator { simulator, base in
            // Given a category whose games are restricted in AF and CA-ON, every other one in US too,
            // one game withdrawn everywhere and one in US
            let id = try await firstCategory(base)
            let all = try await rawGames(base, id, territory: nil)
            try #require(all.total == all.items.count)
            let ids = all.items.compactMap(Self.gameID)
            let (everywhere, inUS) = (ids[0], ids[3])
            _ = try simulator.withdraw(Withdrawal(id: everywhere))
            _ = try simulator.withdraw(Withdrawal(id: inUS, territories: ["US"]))
            func restrictions(_ game: [String: Any]) -> [String] {
                (game["restrictedTerritories"] as? [String])
                    ?? (game["restrictedTerritories"] as? String)?.split(separator: " ").map(String.init) ?? []
            }
            // When the category is asked for in US (in lower case), in CA, in CA-ON, and in a malformed code
            let us = try await rawGames(base, id, territory: "us")
            let canada = try await rawGames(base, id, territory: "CA")
            let ontario = try await rawGames(base, id, territory: "CA-ON")
            let url = ProviderRequest.categories(edition).url(relativeTo: base)
            let categories = try JSONDecoder().decode(
                ProviderCollection<ProviderCategory>.self,
                from: try await get(URL(string: url.absoluteString + "&territory=CA-ON")!).body)
            let malformed = try await get(URL(string: url.absoluteString + "&territory=G%20B")!)
            // Then US leaves out the games restricted or withdrawn there, CA only the one withdrawn
            // everywhere (CA-ON is not all of CA), CA-ON every game, each total counting what is left
            let expectedUS = all.items.filter { !restrictions($0).contains("US") }.compactMap(Self.gameID)
                .filter { $0 != everywhere && $0 != inUS }
            #expect(us.items.compactMap(Self.gameID) == expectedUS)
            #expect(us.total == expectedUS.count && !expectedUS.isEmpty)
            #expect(canada.items.compactMap(Self.gameID) == ids.filter { $0 != everywhere })
            #expect(canada.total == ids.count - 1)
            #expect(ontario.items.isEmpty && ontario.total == 0)
            #expect(categories.items?.first { $0.id?.text == id }?.games?.total == 0)
            #expect(malformed.status == 400)
            #expect(String(decoding: malformed.body, as: UTF8.self).contains("territory must be an ISO 3166 code"))
        }
    }

    /// The first category with more than two pages of games.
    func firstCategory(_ base: URL) async throws -> String {
        let answer = try await get(ProviderRequest.categories(edition).url(relativeTo: base))
        let categories = try JSONDecoder().decode(ProviderCollection<ProviderCategory>.self, from: answer.body)
        return try #require(categories.items?.first { ($0.games?.total ?? 0) > 20 }?.id?.text)
    }

    /// The ids of the categories that have games.
    func categoryIDs(_ base: URL) async throws -> [String] {
        let answer = try await get(ProviderRequest.categories(edition).url(relativeTo: base))
        let categories = try JSONDecoder().decode(ProviderCollection<ProviderCategory>.self, from: answer.body)
        return (categories.items ?? []).compactMap { ($0.games?.total ?? 0) > 0 ? $0.id?.text : nil }
    }
}
