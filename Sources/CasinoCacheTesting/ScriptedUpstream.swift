public import CasinoCache
@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
import Foundation

/// An upstream a test scripts: the answers per key, in order (the last one repeats), failures,
/// `304`s, latency on the injected clock, call counts, bulk validation and the player routes. For
/// view-model tests against a real ``CasinoCache/CatalogCache`` without a server.
///
/// ```swift
/// let clock = ManualClock()
/// let upstream = ScriptedUpstream(clock: clock)
/// upstream.script(.categories(edition), .content(.categories(lobby), etag: "v1"), .notModified)
/// upstream.script(.gamesPage(edition, categoryId: "SLOTS", offset: 0), .after(.seconds(3), .content(.gamesPage(page))))
/// upstream.script(.categories(otherEdition), .failure(URLError(.notConnectedToInternet)))
/// let cache = CatalogCache(upstream: upstream, cacheDirectory: nil, bundleDirectory: bundleURL, clock: clock)
/// …
/// #expect(upstream.calls(for: CacheKey(.categories(edition))) == 1)
/// ```
///
/// A key without a script answers ``Answer/unscripted`` (offline by default). Player lists are
/// scripted under ``CasinoCache/CacheKey/playerList(_:edition:player:)`` with `.content(.gamesPage(…))`;
/// a favourites change is applied to the player's last scripted or changed list and answered with
/// it, unless ``scriptMutations(_:)`` says otherwise.
public final class ScriptedUpstream: PlayerUpstream {
    /// One answer to one call.
    public indirect enum Answer: Sendable {
        /// `200` with this content and validator.
        case content(CatalogContent, etag: String? = nil)
        /// `304`: what the cache holds is current.
        case notModified
        /// The call throws this error (`URLError`, ``CasinoCache/UpstreamError``, anything).
        case failure(any Error & Sendable)
        /// `answer`, after `delay` on the clock the upstream was made with.
        case after(Duration, Answer)

        /// What a key without a script answers: `URLError(.notConnectedToInternet)`.
        public static let unscripted = Answer.failure(URLError(.notConnectedToInternet))
    }

    /// One call the upstream received.
    public struct Call: Sendable, Hashable {
        /// The key asked for (a catalogue key, or a player list).
        public var key: CacheKey
        /// The `If-None-Match` sent, if any.
        public var etag: String?
    }

    private struct State {
        var scripts: [CacheKey: [Answer]] = [:]
        var unscripted: Answer = .unscripted
        var calls: [Call] = []
        var validation: (@Sendable ([SnapshotKey: String]) -> [SnapshotKey: UpstreamVerdict]?)?
        var validationCalls = 0
        var mutationAnswer: Answer?
        var sent: [PlayerMutation] = []
    }

    private let state = Locked(State())
    private let clock: any CacheClock

    /// - Parameter clock: What ``Answer/after(_:_:)`` waits on: give the cache's `ManualClock`, and
    ///   advance it to let a slow answer through.
    public init(clock: any CacheClock = SystemClock()) {
        self.clock = clock
    }

    // MARK: - Scripting

    /// Answers the calls for `key` with `answers`, in order; the last one repeats.
    public func script(_ key: CacheKey, _ answers: Answer...) {
        precondition(!answers.isEmpty, "script at least one answer")
        state.withLock { $0.scripts[key] = answers }
    }

    /// Answers the calls for `key` with `answers`, in order; the last one repeats.
    public func script(_ key: SnapshotKey, _ answers: Answer...) {
        precondition(!answers.isEmpty, "script at least one answer")
        state.withLock { $0.scripts[CacheKey(key)] = answers }
    }

    /// What a key without a script answers: ``Answer/unscripted`` by default.
    public func scriptUnscripted(_ answer: Answer) {
        state.withLock { $0.unscripted = answer }
    }

    /// Answers bulk validation (``CasinoCache/CatalogCache/synchronize()``) with `verdicts` for the
    /// hashes sent; `nil` from it, or no call of this method, means the upstream has none.
    public func scriptValidation(
        _ verdicts: @escaping @Sendable ([SnapshotKey: String]) -> [SnapshotKey: UpstreamVerdict]?
    ) {
        state.withLock { $0.validation = verdicts }
    }

    /// Answers every favourites change with `answer` (a failure, a delay, a list) instead of
    /// applying it to the player's list.
    public func scriptMutations(_ answer: Answer?) {
        state.withLock { $0.mutationAnswer = answer }
    }

    // MARK: - What happened

    /// Every call so far, oldest first.
    public var calls: [Call] { state.withLock { $0.calls } }

    /// How many calls asked for `key`.
    public func calls(for key: CacheKey) -> Int { state.withLock { $0.calls.filter { $0.key == key }.count } }

    /// How many bulk validation calls were made.
    public var validationCalls: Int { state.withLock { $0.validationCalls } }

    /// The favourites changes sent, oldest first.
    public var sentMutations: [PlayerMutation] { state.withLock { $0.sent } }

    // MARK: - CatalogUpstream

    public func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        switch try await answer(CacheKey(.categories(edition)), etag: etag) {
        case .modified(.categories(let list), let etag): .modified(list, etag: etag)
        case .modified: throw ScriptError(message: "categories of \(edition) were scripted with a games page")
        case .notModified: .notModified
        }
    }

    public func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        let key = CacheKey(.gamesPage(edition, categoryId: categoryId, offset: offset))
        return try page(try await answer(key, etag: etag), key)
    }

    public func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int
    ) async throws -> [SnapshotKey: UpstreamVerdict]? {
        let validation = state.withLock { state in
            state.validationCalls += 1
            return state.validation
        }
        return validation?(contentHashes)
    }

    // MARK: - PlayerUpstream

    public func playerList(
        _ list: PlayerList, player: String, edition: Edition, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        let key = CacheKey.playerList(list, edition: edition, player: player)
        return try page(try await answer(key, etag: etag), key)
    }

    public func send(_ mutation: PlayerMutation, limit: Int) async throws -> GamesPage {
        let key = mutation.key
        let scripted = state.withLock { state -> Answer? in
            state.sent.append(mutation)
            return state.mutationAnswer
        }
        if let scripted {
            guard case .modified(.gamesPage(let page), _) = try await resolve(scripted, key) else {
                throw ScriptError(message: "a favourites change must be answered with a list")
            }
            return page
        }
        // Applied to the player's current list, which later reads then answer.
        return state.withLock { state in
            var page =
                state.scripts[key].flatMap(Self.lastPage)
                ?? GamesPage(categoryId: PlayerList.favourites.categoryId, offset: 0, limit: limit, total: 0, items: [])
            page.items.removeAll { $0.id == mutation.gameId }
            if mutation.kind == .addFavourite, let game = mutation.game { page.items.insert(game, at: 0) }
            page.items = Array(page.items.prefix(limit))
            page.count = page.items.count
            page.total = page.items.count
            state.scripts[key] = [.content(.gamesPage(page))]
            return page
        }
    }

    // MARK: - Answering

    /// Why a scripted answer does not fit the call.
    public struct ScriptError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private func answer(_ key: CacheKey, etag: String?) async throws -> UpstreamResponse<CatalogContent> {
        let next = state.withLock { state -> Answer in
            state.calls.append(Call(key: key, etag: etag))
            guard var answers = state.scripts[key] else { return state.unscripted }
            let next = answers.removeFirst()
            state.scripts[key] = answers.isEmpty ? [next] : answers
            return next
        }
        return try await resolve(next, key)
    }

    private func resolve(_ answer: Answer, _ key: CacheKey) async throws -> UpstreamResponse<CatalogContent> {
        switch answer {
        case .content(let content, let etag): return .modified(content, etag: etag)
        case .notModified: return .notModified
        case .failure(let error): throw error
        case .after(let delay, let answer):
            try await clock.sleep(for: delay)
            return try await resolve(answer, key)
        }
    }

    private func page(
        _ response: UpstreamResponse<CatalogContent>, _ key: CacheKey
    ) throws -> UpstreamResponse<GamesPage> {
        switch response {
        case .modified(.gamesPage(let page), let etag): return .modified(page, etag: etag)
        case .modified: throw ScriptError(message: "\(key) was scripted with categories, not a games page")
        case .notModified: return .notModified
        }
    }

    private static func lastPage(_ answers: [Answer]) -> GamesPage? {
        for answer in answers.reversed() {
            var current = answer
            while case .after(_, let inner) = current { current = inner }
            if case .content(.gamesPage(let page), _) = current { return page }
        }
        return nil
    }
}
