@_spi(CatalogTools) import CasinoCache
@_spi(CatalogTools) import CasinoCacheTesting
@_spi(CatalogTools) import CasinoCatalog
@_spi(CatalogTools) import CatalogPipeline
@_spi(CatalogTools) import CatalogServer
import Foundation
import Logging

/// Five app sessions, played for real: the provider simulator over loopback HTTP, the
/// app's bundled snapshot built by the pipeline, a cache directory on disk, and a manual clock
/// to jump hours between sessions.
///
/// Each session opens the lobby the way an app does: the categories and the first page of the
/// first category, read synchronously for the first frame, then asked asynchronously (which
/// starts the background refresh when the content is stale or bundled).
struct DemoStory: Sendable {
    var games: Int
    var categories: Int
    var latency: LatencyRange
    var keepsFiles: Bool
    var logger: Logger

    static let edition = try! Edition(language: "en", platform: .iPhone)
    static let territory = Territory("GB")

    func run() async throws -> DemoReport {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-demo-\(UUID().uuidString)")
        defer { if !keepsFiles { try? FileManager.default.removeItem(at: work) } }

        // The provider's catalogue at version 1, and the snapshot the app shipped with, built from
        // it by the pipeline.
        let recording = work.appendingPathComponent("recording")
        var sample = SampleRecording(games: games, categories: categories)
        sample.editions = [Self.edition]
        try sample.write(to: recording)
        let bundle = work.appendingPathComponent("bundle")
        let catalog = try Normalizer(configuration: .default, logger: logger)
            .normalize(try RecordedProviderSource(directory: recording)).catalog

        let simulatorLogger =
            logger.logLevel <= .debug ? logger : Logger(label: "simulator") { _ in SwiftLogNoOpLogHandler() }
        let simulator = CatalogSimulator(catalog: try .load(recording: recording), logger: simulatorLogger)
        let baseURL = try await simulator.start()
        do {
            // The first screen's thumbnails, fetched from the simulator's CDN over loopback (before
            // its latency is turned on) and baked into the snapshot with the rest.
            let (images, fetched) = try await bundleImages(of: catalog, from: simulator, into: work)
            let manifest = try SnapshotWriter(logger: logger).write(catalog, images: images, to: bundle)
            let offline = firstLaunchOffline(catalog: catalog, bundle: bundle)
            simulator.update { $0.latencyMilliseconds = latency.milliseconds }
            let report = try await play(
                simulator: simulator, baseURL: baseURL, catalog: catalog, bundle: bundle,
                cache: work.appendingPathComponent("cache"))
            await simulator.stop()
            var result = report
            result.header =
                [
                    "provider simulator  \(baseURL.absoluteString), latency \(latency) ms, \(games) games in \(categories) categories (\(Self.edition))",
                    "bundled snapshot    built by the pipeline from the provider's version 1: \(manifest.files.count) files, "
                        + "\(manifest.imageFiles.count) images (\(manifest.imageFiles.reduce(0) { $0 + $1.bytes }) bytes; \(fetched))",
                    "first launch, offline: \(offline.shown) of \(offline.wanted) first-screen thumbnails answered from the bundle "
                        + "(the first \(PipelineConfiguration.ImageBundling(allowedHosts: []).gamesPerCategory) games of each of \(offline.categories) categories), no network",
                    "the provider moved on to version 2 after the app was built; TTL 6 h; clock jumps with a ManualClock",
                ] + (keepsFiles ? ["working directory   \(work.path)"] : [])
            return result
        } catch {
            await simulator.stop()
            throw error
        }
    }

    /// Fetches the plan's images from the simulator (a host rewrite to its `/images`) and bundles
    /// them at the defaults; returns them and the fetch's summary.
    private func bundleImages(
        of catalog: Catalog, from simulator: CatalogSimulator, into work: URL
    ) async throws -> (BundledImages, String) {
        let host = "static.example-cdn.com"
        let bundling = PipelineConfiguration.ImageBundling(allowedHosts: [host])
        var configuration = ImageFetcher.Configuration(bundling: bundling)
        configuration.hostRewrites = [host: simulator.imageBaseURL(for: host)!]
        configuration.isProgressLineEnabled = false
        let directory = work.appendingPathComponent("images")
        let summary = try await ImageFetcher(configuration: configuration, logger: logger)
            .fetch(ImagePlan(catalog: catalog, bundling: bundling).urls, into: directory)
        let images = ImageBundler(bundling: bundling).bundle(catalog, from: try RecordedImages(directory: directory))
        return (images, "fetched over loopback: \(summary.fetched) of \(summary.images)")
    }

    /// A first launch with no network at all: how many of the first screen's thumbnails (the first
    /// games of each category's first page) the app can show from the bundle.
    private func firstLaunchOffline(catalog: Catalog, bundle: URL) -> (shown: Int, wanted: Int, categories: Int) {
        let cache = CatalogCache(
            upstream: ProviderHTTPUpstream(
                configuration: .init(baseURL: URL(string: "http://127.0.0.1:9")!), logger: logger),
            cacheDirectory: nil, bundleDirectory: bundle, logger: logger)
        cache.setTerritory(Self.territory)
        let perCategory = PipelineConfiguration.ImageBundling(allowedHosts: []).gamesPerCategory
        let categories = cache.cachedCategories(edition: Self.edition).value?.items ?? []
        var (shown, wanted) = (0, 0)
        for category in categories {
            let games = cache.cachedGamesPage(edition: Self.edition, categoryId: category.id).value?.items ?? []
            for game in games.prefix(perCategory) {
                wanted += 1
                if cache.bundledImage(for: game.thumbnail) != nil { shown += 1 }
            }
        }
        return (shown, wanted, categories.count)
    }

    private func play(
        simulator: CatalogSimulator, baseURL: URL, catalog: Catalog, bundle: URL, cache directory: URL
    ) async throws -> DemoReport {
        let edition = Self.edition
        let categoryId = try firstCategoryId(of: catalog)
        let upstream = ProviderHTTPUpstream(configuration: .init(baseURL: baseURL), logger: logger)
        let clock = ManualClock(now: catalog.generatedAt.addingTimeInterval(86_400))
        // The player is in Great Britain, as the app learns at launch (the games restricted there,
        // none in the sample, would leave every answer).
        let launch = {
            let cache = CatalogCache(
                upstream: upstream, cacheDirectory: directory, bundleDirectory: bundle, clock: clock, logger: logger)
            cache.setTerritory(Self.territory)
            return cache
        }
        var report = DemoReport()
        simulator.update { $0.version = 2 }

        // 0. What the user has today: no cache, a spinner until the provider answers.
        var before = simulator.statistics()
        let started = ContinuousClock.now
        async let listed = upstream.categories(edition: edition, etag: nil)
        async let paged = upstream.gamesPage(edition: edition, categoryId: categoryId, offset: 0, limit: 10, etag: nil)
        _ = try await (listed, paged)
        let spinner = started.duration(to: .now)
        report.rows.append(
            DemoRow(
                step: "0 no cache (today)", sawFirst: "a spinner", firstContent: spinner, tier: "network",
                then: "—", settled: spinner, requests: DemoRow.requests(from: before, to: simulator.statistics()),
                updates: 0, failures: 0))

        // 1. First launch: the bundled snapshot at once, then a silent update from the provider.
        before = simulator.statistics()
        let first = try await session(
            "1 first launch", launch, categoryId: categoryId, simulator: simulator, before: before)
        report.rows.append(first.row)
        report.statistics.append(("1", first.cache.statistics()))
        await first.cache.flush()

        // 2. Relaunch an hour later: fresh from disk, no network.
        clock.advance(by: .seconds(3600))
        before = simulator.statistics()
        let second = try await session(
            "2 relaunch +1 h", launch, categoryId: categoryId, simulator: simulator, before: before)
        report.rows.append(second.row)
        report.statistics.append(("2", second.cache.statistics()))
        await second.cache.flush()

        // 3. Relaunch 7 hours later, the provider at version 3: stale at once, refreshed silently.
        simulator.update { $0.version = 3 }
        clock.advance(by: .seconds(7 * 3600))
        before = simulator.statistics()
        let third = try await session(
            "3 relaunch +7 h (provider v3)", launch, categoryId: categoryId, simulator: simulator, before: before)
        report.rows.append(third.row)
        report.statistics.append(("3", third.cache.statistics()))
        await third.cache.flush()

        // 4. The provider is gone and 7 more hours passed: cached data, a failure event.
        let port = baseURL.port ?? 0
        await simulator.stop()
        clock.advance(by: .seconds(7 * 3600))
        before = simulator.statistics()
        let fourth = try await session(
            "4 relaunch +7 h, provider down", launch, categoryId: categoryId, simulator: simulator, before: before)
        report.rows.append(fourth.row)
        if let failure = fourth.log.failures.first {
            report.failureCause = failure.cause.map { String(describing: $0) } ?? failure.message
        }

        // 5. The provider is back on the same port; the app says the network is back.
        _ = try await simulator.start(port: port)
        before = simulator.statistics()
        let fifth = try await recover(fourth, categoryId: categoryId, simulator: simulator, before: before)
        report.rows.append(fifth)
        report.statistics.append(("4 (and 5)", fourth.cache.statistics()))

        // 6. Catalogue sync: the provider changed again (v4); a relaunch an hour later shows the
        // lobby from disk and learns the change through one validation call, content inline.
        simulator.update { $0.version = 4 }
        clock.advance(by: .seconds(3600))
        before = simulator.statistics()
        var configuration = CatalogCache.Configuration.default
        configuration.refreshBatchWindow = .seconds(1)
        let syncing = CatalogCache(
            configuration: configuration, upstream: upstream, cacheDirectory: directory, bundleDirectory: bundle,
            clock: clock, logger: logger)
        syncing.setTerritory(Self.territory)
        let sixth = try await learn(
            "6 relaunch +1 h (v4), synchronize()", cache: syncing, categoryId: categoryId, simulator: simulator,
            before: before
        ) { cache in
            "\(await cache.synchronize())"
        }
        report.rows.append(sixth.row)

        // 7. Push: mid-session the provider changes (v5) and pushes what changed.
        before = simulator.statistics()
        let payload = try simulator.bumpVersion()
        let push = try CatalogInvalidation(json: payload)
        let seventh = try await learn(
            "7 push mid-session (v5), markStale()", cache: syncing, log: sixth.log, categoryId: categoryId,
            simulator: simulator, before: before
        ) { cache in
            "\(await cache.markStale(push))"
        }
        report.rows.append(seventh.row)
        report.statistics.append(("6 and 7", syncing.statistics()))
        report.pushPayload = String(decoding: payload, as: UTF8.self)

        // 8 and 9. Mid-day a game is withdrawn while the app is offline; the push alone takes it off
        // the lobby, and it stays off across a relaunch, the bundle's copy included.
        let (eighth, ninth, withdrawalPayload) = try await withdraw(
            cache: syncing, log: seventh.log, categoryId: categoryId, simulator: simulator, launch: launch)
        report.rows += [eighth.row, ninth]
        report.withdrawalPayload = withdrawalPayload
        return report
    }

    /// Steps 8 and 9: the provider withdraws the second game of the page on screen while every
    /// request fails; the push is applied, then a relaunch reads the page from disk, then (the disk
    /// copy forgotten) from the bundle.
    private func withdraw(
        cache: CatalogCache, log: UpdateLog, categoryId: String, simulator: CatalogSimulator,
        launch: () -> CatalogCache
    ) async throws -> (Session, DemoRow, String) {
        let edition = Self.edition
        let key = CacheKey.gamesPage(edition, categoryId: categoryId, offset: 0)
        let shownIds = { (cache: CatalogCache) in
            cache.cachedGamesPage(edition: edition, categoryId: categoryId).value?.items.map(\.id) ?? []
        }
        guard let game = shownIds(cache).dropFirst().first else {
            throw DemoError("the page on screen has fewer than two games")
        }
        simulator.update { $0.errorRate = 1 }
        defer { simulator.update { $0.errorRate = 0 } }
        var before = simulator.statistics()
        let payload = try simulator.withdraw(Withdrawal(id: game))
        let push = try CatalogInvalidation(json: payload)
        let eighth = try await learn(
            "8 offline, game \(game) withdrawn: push", cache: cache, log: log, categoryId: categoryId,
            simulator: simulator, before: before
        ) { cache in
            let report = await cache.markStale(push)
            return
                "\(report.withdrawnFrom.count) key(s) changed; \(game) \(shownIds(cache).contains(game) ? "still shown" : "gone")"
        }
        await cache.flush()

        before = simulator.statistics()
        let started = ContinuousClock.now
        let relaunched = launch()
        let categories = relaunched.cachedCategories(edition: edition)
        let page = relaunched.cachedGamesPage(edition: edition, categoryId: categoryId)
        let firstContent = started.duration(to: .now)
        relaunched.invalidate(key)
        let bundled = relaunched.cachedGamesPage(edition: edition, categoryId: categoryId)
        let absent = { (answer: CacheResult<GamesPage>) in
            answer.value.map { !$0.items.map(\.id).contains(game) } == true ? "absent" : "SHOWN"
        }
        let ninth = DemoRow(
            step: "9 relaunch, still offline", sawFirst: DemoRow.describe(categories: categories, page: page),
            firstContent: firstContent, tier: DemoRow.tier(of: categories, page),
            then: "\(game) \(absent(page)) from the \(page.metadata?.tier.rawValue ?? "?") copy, "
                + "\(absent(bundled)) from the \(bundled.metadata?.tier.rawValue ?? "?") copy (withdrawal list kept on disk)",
            settled: started.duration(to: .now), requests: DemoRow.requests(from: before, to: simulator.statistics()),
            updates: 0, failures: 0)
        return (eighth, ninth, String(decoding: payload, as: UTF8.self))
    }

    // MARK: - Sessions

    /// A running app session: its cache and what the cache told it.
    struct Session {
        var cache: CatalogCache
        var log: UpdateLog
        var row: DemoRow
    }

    /// Launches the app (a new cache on the same directories), renders the lobby synchronously,
    /// asks for it asynchronously, and waits for the background work to settle.
    private func session(
        _ name: String, _ launch: () -> CatalogCache, categoryId: String, simulator: CatalogSimulator,
        before: SimulatorStatistics
    ) async throws -> Session {
        let edition = Self.edition
        let started = ContinuousClock.now
        let cache = launch()
        let log = UpdateLog(cache.updates())
        let categories = cache.cachedCategories(edition: edition)
        let page = cache.cachedGamesPage(edition: edition, categoryId: categoryId)
        let firstContent = started.duration(to: .now)
        let shown = DemoRow.describe(categories: categories, page: page)

        _ = try await cache.categories(edition: edition)
        _ = try await cache.gamesPage(edition: edition, categoryId: categoryId)
        await cache.waitForRefreshes()
        await log.settle(with: cache)
        let settled = started.duration(to: .now)
        let row = DemoRow(
            step: name, sawFirst: shown, firstContent: firstContent, tier: DemoRow.tier(of: categories, page),
            then: DemoRow.then(log.events, server: (before, simulator.statistics())), settled: settled,
            requests: DemoRow.requests(from: before, to: simulator.statistics()), updates: log.updates.count,
            failures: log.failures.count)
        return Session(cache: cache, log: log, row: row)
    }

    /// A session that learns of catalogue changes through `learn` (a bulk validation or a push)
    /// instead of per-key refreshes: the lobby is rendered from the tiers, then `learn` runs.
    private func learn(
        _ name: String, cache: CatalogCache, log: UpdateLog? = nil, categoryId: String, simulator: CatalogSimulator,
        before: SimulatorStatistics, _ learn: (CatalogCache) async -> String
    ) async throws -> Session {
        let edition = Self.edition
        let log = log ?? UpdateLog(cache.updates())
        let eventsBefore = log.events.count
        let started = ContinuousClock.now
        let categories = cache.cachedCategories(edition: edition)
        let page = cache.cachedGamesPage(edition: edition, categoryId: categoryId)
        let firstContent = started.duration(to: .now)
        let outcome = await learn(cache)
        await cache.waitForRefreshes()
        await log.settle(with: cache)
        let settled = started.duration(to: .now)
        let events = Array(log.events.dropFirst(eventsBefore))
        let row = DemoRow(
            step: name, sawFirst: DemoRow.describe(categories: categories, page: page), firstContent: firstContent,
            tier: DemoRow.tier(of: categories, page),
            then: DemoRow.then(events, server: (before, simulator.statistics())) + "; \(outcome)", settled: settled,
            requests: DemoRow.requests(from: before, to: simulator.statistics()),
            updates: events.filter { if case .updated = $0.event { true } else { false } }.count,
            failures: events.filter { if case .refreshFailed = $0.event { true } else { false } }.count)
        return Session(cache: cache, log: log, row: row)
    }

    /// The offline session, after the provider came back: `refreshStale()`.
    private func recover(
        _ session: Session, categoryId: String, simulator: CatalogSimulator, before: SimulatorStatistics
    ) async throws -> DemoRow {
        let edition = Self.edition
        let eventsBefore = session.log.events.count
        let started = ContinuousClock.now
        let categories = session.cache.cachedCategories(edition: edition)
        let page = session.cache.cachedGamesPage(edition: edition, categoryId: categoryId)
        let firstContent = started.duration(to: .now)
        await session.cache.refreshStale()
        await session.log.settle(with: session.cache)
        let settled = started.duration(to: .now)
        let after = session.cache.cachedCategories(edition: edition)
        let events = Array(session.log.events.dropFirst(eventsBefore))
        var then = DemoRow.then(events, server: (before, simulator.statistics()))
        if case .fresh = after { then += "; now fresh" }
        return DemoRow(
            step: "5 provider back + refreshStale()", sawFirst: DemoRow.describe(categories: categories, page: page),
            firstContent: firstContent, tier: DemoRow.tier(of: categories, page), then: then, settled: settled,
            requests: DemoRow.requests(from: before, to: simulator.statistics()),
            updates: events.filter { if case .updated = $0.event { true } else { false } }.count,
            failures: events.filter { if case .refreshFailed = $0.event { true } else { false } }.count)
    }

    private func firstCategoryId(of catalog: Catalog) throws -> String {
        guard let id = catalog.editions.first(where: { $0.edition == Self.edition })?.categories.items.first?.id else {
            throw DemoError("the generated catalogue has no category in \(Self.edition)")
        }
        return id
    }
}

/// Why the demo could not run.
struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
