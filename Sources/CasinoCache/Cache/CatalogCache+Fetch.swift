@_spi(Internals) import CasinoCatalog
import CatalogSupport
import Foundation

/// Single-flight fetching: one upstream call per key however many callers wait for it, stored
/// unless the cache was cleared since the call started.
extension CatalogCache {
    /// Fetches `key` from the upstream, joining a call already in flight for it. The call runs in
    /// its own task: a caller that is cancelled stops waiting, the others still get the result and
    /// the cache is still filled.
    nonisolated(nonsending) func fetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        let task: Task<CacheEntry, any Error> = state.withLock { state in
            if let running = state.inflight[key] {
                state.statistics.coalescedRequests += 1
                return running
            }
            let task = Task { try await self.performFetch(key, current: current) }
            state.inflight[key] = task
            return task
        }
        return try await task.valueUnlessCancelled()
    }

    private func performFetch(_ key: CacheKey, current: CacheEntry?) async throws -> CacheEntry {
        defer { state.withLock { _ = $0.inflight.removeValue(forKey: key) } }
        if let list = key.playerList { return try await performPlayerListFetch(list, key, current: current) }
        let generation = state.withLock { state -> [Int] in
            state.statistics.upstreamCalls += 1
            return state.generation(of: key.scope)
        }
        let response: UpstreamResponse<CatalogContent>
        do {
            response = try await withTimeout(key) { try await self.callUpstream(key, etag: current?.etag) }
        } catch let error as CacheError {
            throw error
        } catch {
            throw CacheError(.upstreamFailed, key: key, "the upstream failed: \(error)", cause: error)
        }
        switch response {
        case .notModified:
            guard let current, current.origin == .network else {
                throw CacheError(.notModifiedWithoutEntry, key: key, "the upstream answered not modified, but nothing is cached")
            }
            record { $0.notModified += 1 }
            return renew(current, etag: current.etag, ifStill: generation)
        case .modified(let content, let etag):
            try check(content, for: key)
            return install(content, etag: etag, for: key, replacing: current, ifStill: generation)
        }
    }

    /// Freshens `entry` whose content the upstream confirmed (RFC 9111 §4.3.4: a 304 freshens the
    /// stored response; the payload stays as it is): stored now, as network content.
    /// `inMemory: false` leaves memory as it is (an entry only on disk stays there).
    func renew(_ entry: CacheEntry, etag: String?, ifStill generation: [Int], inMemory: Bool = true) -> CacheEntry {
        var renewed = entry
        renewed.storedAt = clock.now
        renewed.origin = .network
        renewed.etag = etag
        store(renewed, ifStill: generation, inMemory: inMemory)
        return renewed
    }

    /// Stores new content from the upstream and announces it on the update stream, unless it is
    /// what `current` already holds (a first fetch announces every id as inserted).
    func install(
        _ content: CatalogContent, etag: String?, for key: CacheKey, replacing current: CacheEntry?, ifStill generation: [Int],
        inMemory: Bool = true
    ) -> CacheEntry {
        let entry = CacheEntry(key: key, content: content, storedAt: clock.now, etag: etag, origin: .network)
        if let current, configuration.heldUpdates.holds(key), current.origin == .network, current.content != content, isCached(key) {
            return hold(entry, showing: current, ifStill: generation, inMemory: inMemory)
        }
        if isCached(key) { store(entry, ifStill: generation, inMemory: inMemory) }
        if let current, current.content == content { return entry }
        let changes = ContentChanges(from: current?.content, to: content)
        if current != nil || isCached(key) {
            record { $0.updatesEmitted += 1 }
            broadcaster.publish(CacheUpdate(key: key, event: .updated(content, changes)))
        }
        return entry
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
                    "the upstream answered page \(page.categoryId)@\(page.offset) limit \(page.limit) for \(categoryId)@\(offset) limit \(pageSize)")
            }
        }
        if let violation = content.violations().first {
            throw CacheError(.invalidContent, key: key, "the upstream answered invalid content: \(violation)")
        }
    }

    /// Stores a fetched entry, unless ``clear()`` or ``clear(scope:)`` ran since its fetch started
    /// (`generation`): content fetched before a logout must not come back after it.
    func store(_ entry: CacheEntry, ifStill generation: [Int], inMemory: Bool = true) {
        let current = state.withLock { $0.generation(of: entry.key.scope) }
        guard current == generation else { return }
        if inMemory { memory.store(entry) }
        disk?.store(entry)
        prefetchImages(of: entry)
    }
}
