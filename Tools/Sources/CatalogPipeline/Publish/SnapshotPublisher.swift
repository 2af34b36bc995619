@_spi(CatalogTools) public import CasinoCatalog
public import Foundation
public import Logging

/// Turns a validated snapshot directory (`out/`) into a signed, CDN-ready published set.
///
/// A published set is a directory a CDN serves as it is:
///
/// ```
/// <set>/manifest.json              the SignedManifest: replaced (atomically, last) by each publish
/// <set>/manifests/<version>.json   every signed manifest ever published, never replaced
/// <set>/files/<sha256>             every file, named by the SHA-256 of its bytes, never replaced
/// ```
///
/// The snapshot's own `manifest.json` is one of the content-addressed files. Publishing again
/// into the same directory adds the files that are new and keeps the older ones, so apps still
/// downloading the previous version find every file it names. Nothing the publisher did not
/// write is ever deleted or replaced, and a failure before the last step leaves `manifest.json`
/// as it was.
///
/// ```swift
/// let key = try SigningKey.load(file: keyFile, environment: ProcessInfo.processInfo.environment)
/// let report = try SnapshotPublisher(key: key, logger: logger)
///     .publish(from: URL(fileURLWithPath: "out"), to: URL(fileURLWithPath: "published"))
/// print(report.version)   // the previous version + 1
/// ```
public struct SnapshotPublisher: Sendable {
    /// The key that signs.
    public var key: SigningKey
    /// The snapshot contract's caps the snapshot is validated with: ``SnapshotLimits/default``
    /// by default, as an app reads it.
    public var limits: SnapshotLimits = .default
    /// The largest signed manifest written: ``SignedManifest/defaultMaxBytes`` (8 MiB) by default,
    /// what an updater accepts by default.
    @_spi(CatalogTools) public var maxSignedManifestBytes = SignedManifest.defaultMaxBytes
    /// The list of online keys ``key`` is on, signed by a root key (`catalog sign-keys`), attached
    /// to every manifest; `nil` by default, for a key an app pins itself.
    @_spi(CatalogTools) public var keyList: SignedKeyList?
    /// Where the outcome is logged (`.info`).
    public var logger: Logger

    /// The folder of a published set that keeps every signed manifest by version.
    public static let historyDirectory = "manifests"

    public init(key: SigningKey, limits: SnapshotLimits = .default, logger: Logger) {
        self.key = key
        self.limits = limits
        self.logger = logger
    }

    /// What a publish did.
    public struct Report: Sendable, Hashable {
        /// The version published.
        public var version: Int
        /// The version it replaced, or `nil` for the set's first.
        public var previousVersion: Int?
        /// When apps stop accepting it.
        public var expiresAt: Date
        /// Content-addressed files written now (the snapshot manifest included).
        public var filesWritten: Int
        /// Files already in the set with the same hash, kept as they are.
        public var filesReused: Int
        /// The bytes of the files written.
        public var bytesWritten: Int
        /// The signed manifest as written.
        @_spi(CatalogTools) public var signedManifest: SignedManifest
    }

    /// Publishes the snapshot in `snapshot` into the set `published` (created when missing).
    ///
    /// - Parameters:
    ///   - snapshot: A snapshot directory; it must validate.
    ///   - published: The published set's directory.
    ///   - version: The version to publish; by default the set's last version + 1 (1 for a new set).
    ///     It must be above every version published in the set.
    ///   - expiresIn: Seconds from `now` after which apps refuse the set: 30 days by default.
    ///   - withdrawals: The provider's complete withdrawal list, signed with the set so apps apply
    ///     it at once (``PublishedManifest/withdrawals``), or `nil`. The snapshot must not show a
    ///     game it withdraws (build it with the same list), and its sequence must not be below the
    ///     set's current one.
    ///   - now: The publishing time, the wall clock by default.
    /// - Returns: What was written.
    /// - Throws: ``PipelineError``: `.validationFailed` when the snapshot does not validate,
    ///   `.invalidConfiguration` for a version that does not go up, a withdrawal list older than the
    ///   set's or a bad expiry,
    ///   `.outputNotReplaceable` when `published` is not a published set or one of its files has
    ///   other bytes than its name says, `.io` when writing fails.
    @discardableResult
    public func publish(
        from snapshot: URL, to published: URL, version: Int? = nil, expiresIn: TimeInterval = 30 * 86_400,
        withdrawals: WithdrawalList? = nil, now: Date = Date()
    ) throws(PipelineError) -> Report {
        guard expiresIn.isFinite, expiresIn >= 60, expiresIn <= 10 * 365 * 86_400 else {
            throw PipelineError(
                .invalidConfiguration, "the expiry must be between a minute and ten years, got \(expiresIn) s")
        }
        try checkSeparate(snapshot, published)
        try checkKeyList(now: now)
        let previous = try PublishedSetHistory(directory: published)
        let next = version ?? (previous.lastVersion ?? 0) + 1
        if let last = previous.lastVersion, next <= last {
            throw PipelineError(
                .invalidConfiguration,
                "version \(next) is not above \(last), the set's last; versions only go up (leave --set-version out for \(last + 1))",
                file: published.relativePath)
        }
        guard next > 0 else { throw PipelineError(.invalidConfiguration, "versions start at 1, got \(next)") }
        if let withdrawals, let last = previous.lastWithdrawalSequence, withdrawals.sequence < last {
            throw PipelineError(
                .invalidConfiguration,
                "the withdrawal list's sequence \(withdrawals.sequence) is below \(last), the one the set publishes now; "
                    + "apps refuse an older list: publish the provider's current one",
                file: published.relativePath)
        }

        let (manifestBytes, manifest, files) = try readSnapshot(snapshot, withdrawals: withdrawals)
        let manifestFile = PublishedManifest.File(
            path: Manifest.fileName, bytes: manifestBytes.count, sha256: FileNaming.hexSHA256(manifestBytes))
        let payload = PublishedManifest(
            version: next, publishedAt: now, expiresAt: now.addingTimeInterval(expiresIn),
            generatedAt: manifest.generatedAt, contentHash: manifest.contentHash, manifest: manifestFile,
            files: PublishedManifest.File.listed(in: manifest), withdrawals: withdrawals)
        let signed = try sign(payload)

        var report = Report(
            version: next, previousVersion: previous.lastVersion, expiresAt: payload.expiresAt, filesWritten: 0,
            filesReused: 0, bytesWritten: 0, signedManifest: signed.value)
        let store = published.appendingPathComponent(PublishedManifest.filesDirectory)
        for (file, data) in zip([manifestFile] + payload.files, [manifestBytes] + files) {
            if try storeFile(data, named: file.sha256, in: store) {
                report.filesWritten += 1
                report.bytesWritten += data.count
            } else {
                report.filesReused += 1
            }
        }
        try previous.record(signed.bytes, version: next)
        try writeManifest(signed.bytes, into: published)
        logger.info(
            "published snapshot set",
            metadata: [
                "publish.directory": "\(published.relativePath)", "publish.version": "\(next)",
                "publish.filesWritten": "\(report.filesWritten)", "publish.filesReused": "\(report.filesReused)",
                "publish.bytesWritten": "\(report.bytesWritten)", "publish.keyId": "\(key.keyId)",
            ])
        return report
    }

    /// Refuses a set inside the snapshot (it would break the snapshot) or the other way round.
    private func checkSeparate(_ snapshot: URL, _ published: URL) throws(PipelineError) {
        let from = snapshot.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        let to = published.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        if from.hasPrefix(to) || to.hasPrefix(from) {
            throw PipelineError(
                .invalidConfiguration, "the published set and the snapshot directory must not contain each other",
                file: published.relativePath)
        }
    }

    /// The validated snapshot (a game `withdrawals` withdraws must not be shown): its manifest's
    /// exact bytes, the manifest, and every listed file's bytes.
    private func readSnapshot(
        _ directory: URL, withdrawals: WithdrawalList?
    ) throws(PipelineError) -> (Data, Manifest, [Data]) {
        guard FileInput.isDirectory(directory) else {
            throw PipelineError(
                .missingInput, "no snapshot directory here (make snapshot writes one)", file: directory.relativePath)
        }
        try SnapshotValidator(limits: limits, withdrawals: withdrawals.map(WithdrawalLookup.init))
            .validate(directory: directory)
            .requireValid("the snapshot", file: directory.relativePath)
        let reader = SnapshotReader(directory: directory, limits: limits)
        let manifestURL = directory.appendingPathComponent(Manifest.fileName)
        let bytes = try FileInput.read(manifestURL, limit: limits.maxManifestBytes, what: "the snapshot manifest")
        let manifest: Manifest
        do {
            manifest = try CatalogCoding.decoder().decode(Manifest.self, from: bytes)
        } catch {
            throw PipelineError(.malformedInput, "changed while publishing: \(error)", file: manifestURL.relativePath)
        }
        var files: [Data] = []
        for entry in manifest.files {
            do {
                // Validated above, but read again now: what is published must be what its hash says.
                files.append(try reader.verifiedBytes(of: entry))
            } catch  where error.code == .checksumMismatch {
                throw PipelineError(
                    .validationFailed, "changed while publishing (\(error.message)); publish again",
                    file: directory.appendingPathComponent(entry.path).relativePath)
            } catch {
                throw PipelineError(error, in: directory)
            }
        }
        for image in manifest.imageFiles {
            do {
                // Size, SHA-256 and sniffed type, read again now, as for the snapshot files.
                files.append(try reader.image(image))
            } catch {
                throw PipelineError(error, in: directory)
            }
        }
        return (bytes, manifest, files)
    }

    /// Refuses a key list apps would refuse: unreadable, expired, or not naming ``key``.
    private func checkKeyList(now: Date) throws(PipelineError) {
        guard let keyList else { return }
        let list: SigningKeyList
        do {
            list = try keyList.decodedList()
        } catch {
            throw PipelineError(.invalidConfiguration, "the key list is not a signed key list: \(error)")
        }
        if let problem = list.problem { throw PipelineError(.invalidConfiguration, problem) }
        guard list.expiresAt > now else {
            throw PipelineError(
                .invalidConfiguration,
                "key list version \(list.version) expired at \(list.expiresAt); re-sign it (catalog sign-keys)")
        }
        guard list.keys.contains(where: { $0.id == key.keyId && $0.publicKeyBytes == key.publicKey }) else {
            throw PipelineError(
                .invalidConfiguration,
                "the signing key (id \(key.keyId)) is not on key list version \(list.version): apps would refuse "
                    + "the set; sign a list naming it (catalog sign-keys --key its .pub)")
        }
    }

    /// The signed manifest for `payload`, and its bytes; its own signature checked.
    private func sign(_ payload: PublishedManifest) throws(PipelineError) -> (value: SignedManifest, bytes: Data) {
        let payloadBytes: Data
        let signed: SignedManifest
        let bytes: Data
        do {
            payloadBytes = try CatalogCoding.encoder().encode(payload)
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the published manifest: \(error)")
        }
        let signature = try key.signature(for: payloadBytes)
        guard key.isValidSignature(signature, for: payloadBytes) else {
            throw PipelineError(
                .io, "the signature does not verify with the key's own public key; nothing was published")
        }
        signed = SignedManifest(keyId: key.keyId, payload: payloadBytes, signature: signature, keyList: keyList)
        do {
            bytes = try signed.encoded()
        } catch {
            throw PipelineError(.invalidContent, "cannot encode the signed manifest: \(error)")
        }
        guard bytes.count <= maxSignedManifestBytes else {
            throw PipelineError(
                .invalidConfiguration,
                "the signed manifest would be \(bytes.count) bytes, over \(maxSignedManifestBytes), what an app accepts "
                    + "by default; bundle fewer files or raise SnapshotUpdater.Configuration.maxManifestBytes in the app"
            )
        }
        return (signed, bytes)
    }

    /// Writes `data` as `store/<name>` unless that file is there; one that is there must hold the
    /// same bytes. Written under a temporary name and renamed, so a CDN sync never sees half a file.
    ///
    /// - Returns: Whether the file was written (`false`: it was there).
    private func storeFile(_ data: Data, named name: String, in store: URL) throws(PipelineError) -> Bool {
        let url = store.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: url.path) {
            let existing = try FileInput.read(url, limit: max(data.count, 1), what: "a published file")
            guard existing.count == data.count, FileNaming.hexSHA256(existing) == name else {
                throw PipelineError(
                    .outputNotReplaceable,
                    "is in the set with other bytes than its name says; published files never change, so it is "
                        + "not replaced: check the set and remove the file by hand if it is corrupt",
                    file: url.relativePath)
            }
            return false
        }
        try FileOutput.writeAtomically(data, to: url)
        return true
    }

    /// Replaces the set's `manifest.json`: a synced temporary file renamed over it.
    private func writeManifest(_ data: Data, into published: URL) throws(PipelineError) {
        let url = published.appendingPathComponent(SignedManifest.fileName)
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw PipelineError(.io, "cannot write: \(error.localizedDescription)", file: url.relativePath)
        }
    }
}
