@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation

/// An upstream that serves a catalogue from memory and counts its calls: the one fake the
/// scenario tests use (ProviderHTTPUpstreamTests cover real HTTP). Knobs: fail, hang, change content,
/// answer 304 for a matching ETag, answer a wrong item count, hold a withdrawal list.
final class CountingUpstream: CatalogUpstream {
    struct Knobs {
        var isOffline = false
        var hangs = false
        var version = 0
        var returnsWrongCount = false
        var usesETags = true
        /// The provider's complete withdrawal list. With one, the upstream answers bulk validation:
        /// the list when newer than the one the cache holds, and no verdicts (each key is left to the
        /// usual refresh); without one (the default) it has no bulk validation, and such a call is
        /// not counted.
        var withdrawals: WithdrawalList? = nil
    }

    private struct State {
        var knobs = Knobs()
        var callCount = 0
        var gate: AsyncGate? = nil
    }

    private let state = Locked(State())
    let catalog: Catalog

    init(catalog: Catalog) {
        self.catalog = catalog
    }

    var calls: Int { state.withLock { $0.callCount } }

    func set(_ change: (inout Knobs) -> Void) { state.withLock { change(&$0.knobs) } }

    /// Makes every call wait until ``open()``.
    func close() { state.withLock { $0.gate = AsyncGate() } }

    /// Lets waiting calls through.
    func open() {
        let gate = state.withLock { state -> AsyncGate? in
            defer { state.gate = nil }
            return state.gate
        }
        gate?.open()
    }

    private func enter() async throws -> Knobs {
        let (current, gate) = state.withLock { state -> (Knobs, AsyncGate?) in
            state.callCount += 1
            return (state.knobs, state.gate)
        }
        await gate?.wait()
        if current.hangs {
            try await Task.sleep(for: .seconds(3600))  // until cancelled by the cache's timeout
        }
        if current.isOffline { throw URLError(.notConnectedToInternet) }
        return current
    }

    func categories(edition: Edition, etag: String?) async throws -> UpstreamResponse<CategoryList> {
        let knobs = try await enter()
        var list = catalog.editions.first { $0.edition == edition }!.categories
        if knobs.version > 0 { list.items[0].name += " v\(knobs.version)" }
        let tag = "\"categories-\(edition)-v\(knobs.version)\""
        if knobs.usesETags, etag == tag { return .notModified }
        return .modified(list, etag: knobs.usesETags ? tag : nil)
    }

    func gamesPage(
        edition: Edition, categoryId: String, offset: Int, limit: Int, etag: String?
    ) async throws -> UpstreamResponse<GamesPage> {
        let knobs = try await enter()
        let pages = catalog.editions.first { $0.edition == edition }!.pages
        guard var page = pages.first(where: { $0.categoryId == categoryId && $0.offset == offset }) else {
            throw URLError(.fileDoesNotExist)
        }
        if knobs.version > 0 { page.items[0].name += " v\(knobs.version)" }
        if knobs.returnsWrongCount { page.count += 1 }
        let tag = "\"page-\(edition)-\(categoryId)-\(offset)-v\(knobs.version)\""
        if knobs.usesETags, etag == tag { return .notModified }
        return .modified(page, etag: knobs.usesETags ? tag : nil)
    }

    /// Bulk validation, with ``Knobs/withdrawals`` only: see there.
    func validate(
        contentHashes: [SnapshotKey: String], pageSize: Int, inlineBytes: Int, withdrawalSequence: Int
    ) async throws -> UpstreamValidation? {
        guard state.withLock({ $0.knobs.withdrawals != nil }) else { return nil }
        let list = try await enter().withdrawals
        let newer = list.flatMap { $0.sequence > withdrawalSequence ? $0 : nil }
        return UpstreamValidation(verdicts: [:], withdrawals: newer)
    }
}
