import AsyncHTTPClient
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogServer
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
@_spi(CatalogTools) import ProviderAPI
import Testing

/// `POST /v1/casino/cache/validate` over real HTTP: verdicts, the inline budget, the caps.
@Suite(.timeLimit(.minutes(5)))
struct CacheValidationEndpointTests {
    let simulatorTests = CatalogSimulatorTests()
    var edition: Edition { simulatorTests.edition }

    func post(_ base: URL, body: Data) async throws -> CatalogSimulatorTests.Answer {
        var request = HTTPClientRequest(url: base.absoluteString + CacheValidation.path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: body))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let answer = try await response.body.collect(upTo: 16 << 20)
        return .init(status: response.status.code, headers: response.headers, body: Data(buffer: answer))
    }

    func validate(_ base: URL, _ request: CacheValidation.Request) async throws -> CacheValidation.Response {
        let answer = try await post(base, body: try CatalogCoding.encoder().encode(request))
        #expect(answer.status == 200)
        return try CatalogCoding.decoder().decode(CacheValidation.Response.self, from: answer.body)
    }

    /// The hash of what the simulator serves for `key` now, read through a first validation.
    func currentHash(_ base: URL, _ key: String) async throws -> String {
        let answer = try await validate(
            base, .init(keys: [key: "sha256:" + String(repeating: "0", count: 64)], pageSize: 10, inlineBytes: 1 << 20))
        return try #require(answer.keys[key]?.contentHash)
    }

    @Test func answersCurrentChangedRemovedAndUnknownPerKey() async throws {
        try await simulatorTests.withSimulator { simulator, base in
            // Given the hashes of the categories and a page as they are now
            let categories = "en-iPhone/categories"
            let categoryId = try await simulatorTests.firstCategory(base)
            let page = SnapshotKey.gamesPage(edition, categoryId: categoryId, offset: 0).description
            let held = [categories: try await currentHash(base, categories), page: try await currentHash(base, page)]
            // When the games change and the app validates those, a missing category, a page past
            // the end, and a string that is no key
            _ = try simulator.bumpVersion()
            let answer = try await validate(
                base,
                .init(
                    keys: held.merging([
                        "en-iPhone/games/NOSUCH/0": held[page]!, "en-iPhone/games/\(categoryId)/9990": held[page]!,
                        "../../etc/passwd": held[page]!,
                    ]) { $1 }, pageSize: 10, inlineBytes: 1 << 20))
            // Then each key has its verdict
            #expect(
                answer.keys[categories]
                    == CacheValidation.Verdict(invalidate: false, etag: answer.keys[categories]?.etag))
            let changed = try #require(answer.keys[page])
            #expect(changed.invalidate && changed.status == nil)
            guard case .gamesPage(let games)? = changed.content else {
                Issue.record("expected the page inline, got \(String(describing: changed.content))")
                return
            }
            #expect(games.items.allSatisfy { $0.name.hasSuffix(" v2") })
            let hash = try CatalogCoding.contentHash(of: games)
            #expect(changed.contentHash == hash)
            #expect(answer.keys["en-iPhone/games/NOSUCH/0"]?.status == .removed)
            #expect(answer.keys["en-iPhone/games/\(categoryId)/9990"]?.status == .removed)
            #expect(answer.keys["../../etc/passwd"]?.status == .unknown)
        }
    }

    @Test func changedContentPastTheBudgetIsNamedWithoutContent() async throws {
        try await simulatorTests.withSimulator { simulator, base in
            // Given three changed pages and a budget for about one
            let ids = try await simulatorTests.categoryIDs(base)
            let stale = "sha256:" + String(repeating: "0", count: 64)
            let keys = Dictionary(
                uniqueKeysWithValues: ids.map {
                    (SnapshotKey.gamesPage(edition, categoryId: $0, offset: 0).description, stale)
                })
            let sizes = try await validate(base, .init(keys: keys, pageSize: 10, inlineBytes: 1 << 20)).keys.values.map
            {
                try CatalogCoding.encoder().encode($0.content).count
            }
            let budget = sizes.max()! + 10
            // When the app validates with that budget
            let answer = try await validate(base, .init(keys: keys, pageSize: 10, inlineBytes: budget))
            // Then every page is invalidated, one or two inline, the rest without content
            #expect(answer.keys.count == ids.count)
            #expect(answer.keys.values.allSatisfy { $0.invalidate })
            let inline = answer.keys.values.filter { $0.content != nil }.count
            #expect((1..<ids.count).contains(inline))
        }
    }

    @Test func refusesTooManyKeysAndTooLargeABodyWith413() async throws {
        try await simulatorTests.withSimulator { _, base in
            // Given one key more than the cap, and a body over the byte cap
            let hash = "sha256:" + String(repeating: "0", count: 64)
            let many = Dictionary(
                uniqueKeysWithValues: (0...CacheValidation.maxKeys).map { ("en-iPhone/games/C\($0)/0", hash) })
            let tooMany = try CatalogCoding.encoder().encode(
                CacheValidation.Request(keys: many, pageSize: 10, inlineBytes: 0))
            let tooLarge = Data(repeating: UInt8(ascii: " "), count: CacheValidation.maxRequestBytes + 1)
            // Then both are 413 with a message saying what to do
            for body in [tooMany, tooLarge] {
                let answer = try await post(base, body: body)
                #expect(answer.status == 413)
                #expect(String(decoding: answer.body, as: UTF8.self).contains("keys"))
            }
        }
    }

    @Test func aBodyOfKeysAloneIsAnsweredWithTheDefaultPageSizeAndNoContentInline() async throws {
        try await simulatorTests.withSimulator { simulator, base in
            // Given a page's hash, and then a changed catalogue
            let categoryId = try await simulatorTests.firstCategory(base)
            let page = SnapshotKey.gamesPage(edition, categoryId: categoryId, offset: 0).description
            let held = try await currentHash(base, page)
            _ = try simulator.bumpVersion()
            // When the app sends its keys alone, as seed 003's shape does
            let answer = try await post(base, body: Data(#"{"keys": {"\#(page)": "\#(held)"}}"#.utf8))
            // Then it is answered (not 400): changed, with its new hash, and no content inline
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let verdict = try CatalogCoding.decoder().decode(CacheValidation.Response.self, from: answer.body).keys[
                page]
            #expect(verdict?.invalidate == true && verdict?.contentHash != nil && verdict?.contentHash != held)
            #expect(verdict?.content == nil)
            // And a page of the default size (10) is what the hash describes: the same key asked with it agrees
            let explicit = try await validate(base, .init(keys: [page: held], pageSize: 10, inlineBytes: 0))
            #expect(explicit.keys[page]?.contentHash == verdict?.contentHash)
        }
    }

    @Test func refusesABodyThatIsNotAValidationRequestWith400() async throws {
        try await simulatorTests.withSimulator { _, base in
            for body in [#"{"keys": ["x"]}"#, "nonsense", #"{"keys": {}, "pageSize": 0, "inlineBytes": 0}"#] {
                let answer = try await post(base, body: Data(body.utf8))
                #expect(answer.status == 400)
            }
        }
    }

    @Test func aVersionBumpAnswersThePushPayloadNamingEveryChangedCategory() async throws {
        try await simulatorTests.withSimulator { simulator, base in
            // When the catalogue's version is bumped
            let payload = try JSONSerialization.jsonObject(with: try simulator.bumpVersion()) as? [String: Any]
            // Then the payload names each category's pages (game names changed), not the category lists
            let patterns = (payload?["catalog"] as? [String: Any])?["invalidate"] as? [String]
            let ids = try await simulatorTests.categoryIDs(base)
            #expect(
                patterns?.contains(SnapshotKeyPattern.categoryPages(edition, categoryId: ids[0]).description) == true)
            #expect(patterns?.contains("en-iPhone/categories") == false)
            #expect(patterns?.allSatisfy { SnapshotKeyPattern($0) != nil } == true)
            #expect(simulator.settings.version == 2)
        }
    }
}
