@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// Installs signed over-the-air snapshots (`catalog publish`) between app releases.
///
/// A check fetches the published set's signed manifest with a conditional request, verifies its
/// Ed25519 signature against the pinned keys before decoding what it signs, and refuses a version
/// not above the installed one, an expired manifest, another format, a snapshot older than the
/// bundle, more files or bytes than the caps, and any path or hash that could leave its
/// directory. It then downloads only the files whose SHA-256 neither the installed generation nor
/// the bundle holds (the others are hard-linked or copied, and hashed again), checks each file's
/// size and SHA-256, reads the new snapshot with `SnapshotReader` under the bundled tier's caps,
/// and installs it atomically (the support directory's layout is in docs/ARCHITECTURE.md).
/// A kill at any point leaves the previous generation serving.
///
/// **Which snapshot serves.** The cache's bundled tier reads one directory for its lifetime, so a
/// new generation serves from the next launch: create the updater first and give the cache its
/// ``activeSnapshotDirectory``, the newest installed generation that reads and is not older than
/// the bundle, else the bundle. Generations the running process may read are never removed.
///
/// ```swift
/// let updater = SnapshotUpdater(configuration: configuration, logger: logger)
/// let cache = CatalogCache(
///     upstream: upstream, cacheDirectory: cachesURL, bundleDirectory: updater.activeSnapshotDirectory, logger: logger)
/// Task {
///     switch try await updater.checkForUpdate() {
///     case .installed(let installation): logger.info("catalogue \(installation.version) next launch")
///     case .upToDate, .refused: break
///     }
/// }
/// ```
public actor SnapshotUpdater {
    /// What the updater was made with.
    public nonisolated let configuration: Configuration
    /// The snapshot directory to serve at this launch: the current generation when it reads and is
    /// not older than the bundle, else ``Configuration/bundleDirectory``.
    public nonisolated let activeSnapshotDirectory: URL?
    /// The published version ``activeSnapshotDirectory`` holds, or `nil` for the bundle.
    public nonisolated let activeVersion: Int?

    private let store: GenerationStore
    private let http: HTTPTransfer
    private let logger: Logger
    private let clock: any CacheClock
    /// The bundle's manifest head (`SnapshotReader/head()`): only its `generatedAt` is used.
    private let bundleManifest: Manifest?
    /// The generation served since launch: never removed while this process runs.
    private let launchGeneration: String?
    /// The withdrawal list of the generation ``installedWithdrawals()`` last read, by its name: a
    /// generation never changes, and its signed manifest (up to 8 MiB) is read, verified and decoded
    /// once rather than at every up-to-date check.
    private let installedList = Locked<(generation: String, list: WithdrawalList?)?>(nil)
    private var inflight: Check?
    private var nextCheckID = 0

    /// The check in flight, shared by every caller of ``checkForUpdate()``.
    private struct Check {
        var id: Int
        var task: Task<Outcome, any Error>
        /// Callers waiting for it: when the last one is cancelled, so is the check.
        var waiters = 0
    }

    /// Picks the snapshot to serve and removes what earlier runs left behind: interrupted
    /// installs, and generations other than the one picked and the current one. Reads two small
    /// files and the generation's manifest; call it at launch, before creating the cache. Creates
    /// ``Configuration/directory`` when missing; on Apple platforms it gets
    /// ``Configuration/fileProtection`` and is excluded from backups.
    ///
    /// - Parameters:
    ///   - configuration: The published set, the pinned keys, the directories and the caps.
    ///   - sessionConfiguration: How requests go out (headers, cookies, proxies, timeouts,
    ///     `URLProtocol` classes): `.ephemeral` by default. The updater sends them through a
    ///     `URLSession` of its own made with it, which caps each body as it arrives.
    ///   - clock: What "now" is when expiry is checked: the system's by default; `ManualClock`
    ///     (CasinoCacheTesting) in tests.
    ///   - logger: Where checks are logged (`.info` and below).
    public init(
        configuration: Configuration, sessionConfiguration: URLSessionConfiguration = .ephemeral,
        clock: any CacheClock = SystemClock(), logger: Logger = .casinoCacheDisabled
    ) {
        self.configuration = configuration
        self.http = HTTPTransfer(configuration: sessionConfiguration)
        self.clock = clock
        self.logger = logger
        let store = GenerationStore(directory: configuration.directory)
        self.store = store
        StorageAttributes(role: .snapshotGenerations, protection: configuration.fileProtection)
            .apply(to: configuration.directory, logger: logger)
        let (pointer, launchGeneration, bundleManifest) = Self.launch(store, configuration: configuration)
        self.bundleManifest = bundleManifest
        if launchGeneration == nil, let pointer {
            logger.info(
                "Installed snapshot generation is unusable or older than the bundle; serving the bundle",
                metadata: ["ota.generation": "\(pointer.generation)", "ota.version": "\(pointer.version)"])
        }
        self.launchGeneration = launchGeneration
        activeSnapshotDirectory = launchGeneration.map(store.generationDirectory) ?? configuration.bundleDirectory
        activeVersion = launchGeneration == nil ? nil : pointer?.version
        store.removeLeftovers(
            launch: launchGeneration, pointer: pointer, now: clock.now,
            retention: configuration.retiredGenerationRetention)
    }

    /// Creates an updater whose requests go out with `session`'s configuration (its delegate is
    /// not called).
    @available(
        *, deprecated,
        message: "pass the session's configuration: init(configuration:sessionConfiguration:clock:logger:)"
    )
    public init(
        configuration: Configuration, session: URLSession, clock: any CacheClock = SystemClock(),
        logger: Logger = .casinoCacheDisabled
    ) {
        self.init(
            configuration: configuration, sessionConfiguration: session.configuration, clock: clock, logger: logger)
    }

    /// Checks the published set and installs it when it is newer and acceptable.
    ///
    /// Concurrent calls share one check, which runs in its own task and ends by
    /// ``Configuration/updateTimeout`` whatever the network does: a download that does not finish,
    /// or does not stop when cancelled, is abandoned there, and nothing it would have installed
    /// becomes visible. A caller whose task is cancelled stops waiting at once; the check is
    /// cancelled when no caller waits for it any more, or by ``cancelUpdate()``. A check that was
    /// cancelled or timed out never holds up the next one.
    ///
    /// - Returns: ``Outcome/upToDate(version:)``, ``Outcome/installed(_:)``, or
    ///   ``Outcome/refused(_:)`` with the reason (``SnapshotUpdateError/isRefusal``).
    /// - Throws: ``SnapshotUpdateError`` when the set could not be fetched or installed (offline,
    ///   timed out, cancelled by ``cancelUpdate()``, an HTTP status, a file-system failure, an
    ///   unusable configuration), or `CancellationError` when the calling task is cancelled. Nothing
    ///   installed changes then.
    public func checkForUpdate() async throws -> Outcome {
        let check = inflight ?? startCheck()
        inflight?.waiters += 1
        do {
            let outcome = try await check.task.valueUnlessCancelled()
            leave(check.id, isCancelled: false)
            return outcome
        } catch is CancellationError where Task.isCancelled {
            // The last caller gone, the check stops at once, unless it is already switching to the
            // new generation (or has): then it installed, and this caller learns so.
            if leave(check.id, isCancelled: true), case .success(.installed(let installation)) = await check.task.result
            {
                return .installed(installation)
            }
            throw CancellationError()
        } catch {
            leave(check.id, isCancelled: false)
            throw error
        }
    }

    /// Cancels the check in flight, if any: its callers get ``SnapshotUpdateError/Code/cancelled``
    /// and nothing is installed (unless the check was already switching to the new generation: then
    /// they get its outcome, a moment later). The next ``checkForUpdate()`` starts a new check.
    public func cancelUpdate() {
        inflight?.task.cancel()
    }

    /// The withdrawal list signed with the newest installed generation (which may serve only from
    /// the next launch), its signature checked again, or `nil` when there is none. Reads that
    /// generation's signed manifest from disk the first time it is asked about one: call it off the
    /// main thread.
    public nonisolated func installedWithdrawals() -> WithdrawalList? {
        guard let generation = store.pointer()?.generation else { return nil }
        if let known = installedList.withLock({ $0 }), known.generation == generation { return known.list }
        guard let manifest = makeRun().installedManifest(of: generation) else { return nil }
        installedList.withLock { $0 = (generation, manifest.withdrawals) }
        return manifest.withdrawals
    }

    /// The generations installed, as ``CatalogCache/inspection(updater:)`` reports them. Reads the
    /// pointer and the newest generation's signed manifest (its signature checked again): call it
    /// off the main thread.
    nonisolated func inspection() -> CacheInspection.OverTheAir {
        Self.inspection(of: makeRun(), serving: launchGeneration)
    }

    /// What an updater made with `configuration` would report at a launch, read offline from its
    /// ``Configuration/directory`` (a device's support directory copied off it): the generation that
    /// would serve, the installed one (its signature checked with the pinned keys, not its expiry)
    /// and the retired ones. Nothing is created, written, renamed or removed, and no request is made:
    /// ``Configuration/manifestURL`` is not used. What `catalog inspect-cache --support` reports.
    ///
    /// - Returns: The report, and the snapshot directory that would serve: the current generation
    ///   when it reads and is not older than the bundle, else ``Configuration/bundleDirectory``.
    @_spi(CatalogTools) public nonisolated static func inspection(
        ofDirectory configuration: Configuration
    ) -> (overTheAir: CacheInspection.OverTheAir, servingDirectory: URL?) {
        let store = GenerationStore(directory: configuration.directory)
        let (_, serving, bundleManifest) = launch(store, configuration: configuration)
        let run = UpdateRun(
            configuration: configuration, store: store, http: nil, logger: .casinoCacheDisabled, clock: SystemClock(),
            bundleManifest: bundleManifest, launchGeneration: serving, gate: CommitGate())
        return (
            inspection(of: run, serving: serving),
            serving.map(store.generationDirectory) ?? configuration.bundleDirectory
        )
    }

    /// The report of `run`'s store, with `serving` the generation served since launch.
    private nonisolated static func inspection(of run: UpdateRun, serving: String?) -> CacheInspection.OverTheAir {
        let store = run.store
        let pointer = store.pointer()
        var installed: CacheInspection.OverTheAir.Generation?
        if let name = pointer?.generation, let manifest = run.installedManifest(of: name),
            let data = store.signedManifest(of: name, maxBytes: run.configuration.maxManifestBytes),
            let signed = try? JSONDecoder().decode(SignedManifest.self, from: data)
        {
            installed = .init(
                name: name, version: manifest.version, publishedAt: manifest.publishedAt,
                expiresAt: manifest.expiresAt, signingKey: signed.keyId,
                keyListVersion: try? signed.keyList?.decodedList().version)
        }
        return CacheInspection.OverTheAir(
            serving: serving, installed: installed,
            retired: (pointer?.retired ?? []).map { .init(name: $0.generation, since: $0.since) })
    }

    /// The current pointer, the generation it names when that serves at a launch (it reads and is
    /// not older than the bundle), and the bundle's manifest head. Reads only.
    private nonisolated static func launch(
        _ store: GenerationStore, configuration: Configuration
    ) -> (pointer: GenerationStore.Pointer?, serving: String?, bundleManifest: Manifest?) {
        let bundleManifest = configuration.bundleDirectory.flatMap {
            try? SnapshotReader(directory: $0, limits: configuration.snapshotLimits).head()
        }
        let pointer = store.pointer()
        let serving = pointer.flatMap {
            store.isServable($0, limits: configuration.snapshotLimits, bundleGeneratedAt: bundleManifest?.generatedAt)
                ? $0.generation : nil
        }
        return (pointer, serving, bundleManifest)
    }

    private nonisolated func makeRun() -> UpdateRun {
        UpdateRun(
            configuration: configuration, store: store, http: http, logger: logger, clock: clock,
            bundleManifest: bundleManifest, launchGeneration: launchGeneration, gate: CommitGate())
    }

    private func startCheck() -> Check {
        nextCheckID += 1
        let id = nextCheckID
        let run = makeRun()
        let task = Task {
            let outcome: Result<Outcome, any Error>
            do { outcome = .success(try await run.run()) } catch { outcome = .failure(error) }
            self.checkEnded(id)  // on the actor: the task inherits its isolation
            return try outcome.get()
        }
        inflight = Check(id: id, task: task)
        return inflight!
    }

    /// One caller stops waiting for check `id`. Returns whether the check is over or about to be
    /// (the caller's cancellation ended it, or it ended already): its result is then at hand.
    @discardableResult
    private func leave(_ id: Int, isCancelled: Bool) -> Bool {
        guard var check = inflight, check.id == id else { return true }
        check.waiters -= 1
        inflight = check
        guard isCancelled, check.waiters == 0 else { return false }
        check.task.cancel()
        return true
    }

    private func checkEnded(_ id: Int) {
        if inflight?.id == id { inflight = nil }
    }
}
