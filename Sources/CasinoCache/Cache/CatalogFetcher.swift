@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import ProviderAPI

/// A catalogue fetch: one upstream call per key (``FetchFlights``), its answer checked against the
/// schema and the page asked for, then stored (a `304` renews what the cache held). What a read's
/// miss, a background refresh and bulk validation's refetches run; a player's list has its own
/// (``PlayerLists``).
final class CatalogFetcher: Sendable {
    let upstream: any CatalogUpstream
    let flights: FetchFlights
    let writer: CacheWriter
    let statistics: StatisticsCounter
    /// The `limit` asked of the upstream, and the one a page it answers must have.
    let pageSize: Int

    init(
        upstream: any CatalogUpstream, flights: FetchFlights, writer: CacheWriter, statistics: StatisticsCounter,
        pageSize: Int
    ) {
        self.upstream = upstream
        self.flights = flights
        self.writer = writer
        self.statistics = statistics
        self.pageSize = pageSize
    }

    /// Fetches `key` from the upstream, joining a fetch already in flight for it.
    nonisolated(nonsending) func fetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        try await flights.entry(for: key) { gate in
            try await self.fetchFromUpstream(key, current: current, gate: gate)
        }
    }

    /// ``fetch(_:current:)`` for a caller that does not wait: `landed` is called with its result.
    func start(
        _ key: CacheKey, current: CacheEntry?, landed: @escaping @Sendable (Result<CacheEntry, any Error>) -> Void
    ) {
        flights.start(
            for: key, fetch: { gate in try await self.fetchFromUpstream(key, current: current, gate: gate) },
            landed: landed)
    }

    /// One fetch: the upstream's answer checked, then stored (a `304` renews `current`) unless the
    /// cache was cleared since the fetch started or its deadline passed.
    private func fetchFromUpstream(_ key: CacheKey, current: CacheEntry?, gate: CommitGate) async throws -> CacheEntry {
        let generation = writer.generation(of: key.scope)
        statistics.record { $0.upstreamCalls += 1 }
        let response: UpstreamResponse<CatalogContent>
        do {
            response = try await callUpstream(key, etag: current?.etag)
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.upstreamFailed, key: key, "the upstream failed: \(error)", cause: error)
        }
        switch response {
        case .notModified:
            guard let current, current.origin == .network else {
                throw CacheError(
                    .notModifiedWithoutEntry, key: key, "the upstream answered not modified, but nothing is cached")
            }
            guard gate.commit() else { throw CancellationError() }
            statistics.record { $0.notModified += 1 }
            return writer.renew(current, etag: current.etag, ifStill: generation)
        case .modified(let content, let etag):
            try check(content, for: key)
            guard gate.commit() else { throw CancellationError() }
            return writer.install(content, etag: etag, for: key, replacing: current, ifStill: generation)
        }
    }

    private func callUpstream(_ key: CacheKey, etag: String?) async throws -> UpstreamResponse<CatalogContent> {
        switch key.content {
        case .categories(let edition):
            switch try await upstream.categories(edition: edition, etag: etag) {
            case .modified(let list, let etag): .modified(.categories(list), etag: etag)
            case .notModified: .notModified
            }
        case .gamesPage(let edition, let categoryId, let offset):
            switch try await upstream.gamesPage(
                edition: edition, categoryId: categoryId, offset: offset, limit: pageSize, etag: etag)
            {
            case .modified(let page, let etag): .modified(.gamesPage(page), etag: etag)
            case .notModified: .notModified
            }
        }
    }

    /// Refuses upstream content that breaks the schema or is not the page that was asked for.
    func check(_ content: CatalogContent, for key: CacheKey) throws {
        if case .gamesPage(_, let categoryId, let offset) = key.content, case .gamesPage(let page) = content {
            guard page.categoryId == categoryId, page.offset == offset, page.limit == pageSize else {
                throw CacheError(
                    .invalidContent, key: key,
                    "the upstream answered page \(page.categoryId)@\(page.offset) limit \(page.limit) for \(categoryId)@\(offset) limit \(pageSize)"
                )
            }
        }
        if let violation = content.violations().first {
            throw CacheError(.invalidContent, key: key, "the upstream answered invalid content: \(violation)")
        }
    }
}
