@_spi(CatalogTools) import CasinoCatalog
import Foundation
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One check for an update, from the manifest request to the pointer switch: what
/// ``SnapshotUpdater/checkForUpdate()`` runs in its task.
struct UpdateRun: Sendable {
    let configuration: SnapshotUpdater.Configuration
    let store: GenerationStore
    /// `nil` for a run that only reads what is installed (``SnapshotUpdater/inspection(ofDirectory:)``).
    let http: HTTPTransfer?
    let logger: Logger
    let clock: any CacheClock
    let bundleManifest: Manifest?
    let launchGeneration: String?
    /// Claimed before the pointer switch: a run abandoned at its deadline or cancelled never installs.
    let gate: CommitGate

    /// A published manifest whose signature verified, with the bytes it came in.
    struct VerifiedManifest {
        var signedBytes: Data
        var payloadBytes: Data
        var manifest: PublishedManifest
        var etag: String?
    }

    func run() async throws -> SnapshotUpdater.Outcome {
        if let problem = configuration.problem {
            throw SnapshotUpdateError(.invalidConfiguration, problem)
        }
        let timeout = configuration.updateTimeout
        do {
            return try await Deadline.run(
                within: Deadline.duration(seconds: timeout), gate: gate,
                timedOut: {
                    SnapshotUpdateError(.timedOut, "the update took over \(timeout) s; nothing was installed")
                },
                { try await self.update() })
        } catch let error as SnapshotUpdateError where error.isRefusal {
            logger.info(
                "Published snapshot refused", metadata: ["ota.code": "\(error.code)", "ota.reason": "\(error)"])
            return .refused(error)
        } catch is CancellationError {
            throw SnapshotUpdateError(.cancelled, "the update was cancelled; nothing was installed")
        }
    }

    private func update() async throws -> SnapshotUpdater.Outcome {
        // A run abandoned before it began must not touch the store another run may be using.
        guard !gate.isAbandoned else { throw CancellationError() }
        let pointer = store.pointer()
        store.removeLeftovers(
            launch: launchGeneration, pointer: pointer, now: clock.now,
            retention: configuration.retiredGenerationRetention)
        let installed = pointer.flatMap { pointer in
            (try? SnapshotReader(
                directory: store.generationDirectory(pointer.generation), limits: configuration.snapshotLimits
            ).manifest())
            .map { (pointer, $0) }
        }
        // Only a usable generation's ETag is sent: a broken one must be replaced, even by the same version.
        let installedList = pointer.map { self.keyListVersion(of: $0.generation) } ?? 0
        guard let verified = try await fetchManifest(etag: installed?.0.etag, keyListVersion: installedList) else {
            logger.debug("Published snapshot not modified", metadata: ["ota.version": "\(pointer?.version ?? 0)"])
            return .upToDate(version: pointer?.version)
        }
        let manifest = verified.manifest
        if let pointer {
            let rollback = refuse(
                .rollback, "version \(manifest.version) is not above the installed \(pointer.version)")
            if manifest.version < pointer.version { throw rollback }
            // The same version again: the installed one (up to date), or a replay of the number
            // with other content. An unusable generation may be replaced by its own version.
            if manifest.version == pointer.version, installed != nil {
                guard isInstalledPayload(verified.payloadBytes, pointer) else {
                    throw refuse(.rollback, rollback.message + " and holds other content")
                }
                return .upToDate(version: pointer.version)
            }
        }
        if let bundleManifest, manifest.generatedAt < bundleManifest.generatedAt {
            throw refuse(
                .olderThanBundle, "the published snapshot (version \(manifest.version)) is older than the app's bundle")
        }
        return .installed(try await install(verified, replacing: pointer, previous: installed))
    }

    /// Whether `payload` is the payload of the installed generation `pointer` names.
    private func isInstalledPayload(_ payload: Data, _ pointer: GenerationStore.Pointer) -> Bool {
        guard let data = store.signedManifest(of: pointer.generation, maxBytes: configuration.maxManifestBytes),
            let signed = try? JSONDecoder().decode(SignedManifest.self, from: data)
        else { return false }
        return signed.payloadBytes == payload
    }

    /// The published manifest generation `name` was installed from, its signature checked again
    /// (not its expiry: it was current when installed), or `nil` when it cannot be read or does
    /// not verify.
    func installedManifest(of name: String) -> PublishedManifest? {
        guard let data = store.signedManifest(of: name, maxBytes: configuration.maxManifestBytes) else { return nil }
        return try? verify(data, etag: nil, checkingExpiry: false).manifest
    }

    // MARK: - The manifest

    /// The verified manifest, or `nil` for a `304`.
    private func fetchManifest(etag: String?, keyListVersion: Int) async throws -> VerifiedManifest? {
        let url = configuration.manifestURL
        guard let answer = try await get(url, etag: etag, maxBytes: configuration.maxManifestBytes) else { return nil }
        return try verify(answer.body, etag: answer.etag, keyListVersion: keyListVersion)
    }

    /// The version of the key list generation `name` was installed with (checked then), or 0.
    private func keyListVersion(of name: String) -> Int {
        guard let data = store.signedManifest(of: name, maxBytes: configuration.maxManifestBytes),
            let signed = try? JSONDecoder().decode(SignedManifest.self, from: data)
        else { return 0 }
        return (try? signed.keyList?.decodedList().version) ?? 0
    }

    /// Checks the signed manifest in order: its fields, its key list (when it has one: signed by a
    /// pinned root key, unexpired unless told not to check, not older than `keyListVersion`, naming
    /// the signing key), the signature over the embedded bytes, and only then what those bytes say
    /// (and, unless told not to, its expiry).
    func verify(
        _ body: Data, etag: String?, checkingExpiry: Bool = true, keyListVersion: Int = 0
    ) throws
        -> VerifiedManifest
    {
        let signed: SignedManifest
        do {
            signed = try JSONDecoder().decode(SignedManifest.self, from: body)
        } catch {
            throw refuse(.malformedManifest, "not a signed manifest: \(DecodingFailure.describe(error).prefix(200))")
        }
        guard signed.format == SignedManifest.currentFormat else {
            throw refuse(
                .foreignFormat, "format '\(signed.format.prefix(80))', this build reads \(SignedManifest.currentFormat)"
            )
        }
        guard let payload = signed.payloadBytes, let signature = signed.signatureBytes else {
            throw refuse(.malformedManifest, "payload or signature is not base64 (of 64 bytes, for the signature)")
        }
        let signers = try signers(of: signed, checkingExpiry: checkingExpiry, keyListVersion: keyListVersion)
        guard signers.contains(where: { $0.isValidSignature(signature, for: payload) }) else {
            throw refuse(
                .badSignature,
                "the signature does not verify with "
                    + (signed.keyList == nil ? "any pinned key" : "listed key \(signed.keyId.prefix(32))")
                    + " (key id \(signed.keyId.prefix(32))): tampered, or signed by another key")
        }
        let manifest: PublishedManifest
        do {
            manifest = try PublishedManifest.decode(payload, maxFileCount: configuration.maxFileCount)
        } catch let error as PublishedManifest.TooManyFiles {
            throw refuse(
                .overLimit, "lists \(error.count) files or more, over the cap of \(error.maxCount) (maxFileCount)")
        } catch {
            throw refuse(
                .malformedManifest,
                "the signed payload is not a published manifest: \(DecodingFailure.describe(error).prefix(200))")
        }
        if let problem = manifest.problem(limits: configuration.manifestLimits) {
            let code: SnapshotUpdateError.Code =
                switch problem.kind {
                case .foreignFormat: .foreignFormat
                case .unsafeEntry: .unsafeEntry
                case .overLimit: .overLimit
                }
            throw refuse(code, problem.message)
        }
        guard !checkingExpiry || manifest.expiresAt > clock.now else {
            throw refuse(.expired, "version \(manifest.version) expired at \(manifest.expiresAt); publish it again")
        }
        return VerifiedManifest(signedBytes: body, payloadBytes: payload, manifest: manifest, etag: etag)
    }

    /// The keys that may have signed `signed`: the pinned ones, or the listed key its key list names.
    private func signers(
        of signed: SignedManifest, checkingExpiry: Bool, keyListVersion: Int
    ) throws
        -> [any SnapshotSignatureVerifier]
    {
        guard let signedList = signed.keyList else {
            // Once a list was installed, a set without one would reset what an older list may do.
            guard keyListVersion == 0 else {
                throw refuse(
                    .rollback, "the set carries no key list; the installed generation's is version \(keyListVersion)")
            }
            return configuration.verifiers
        }
        guard let payload = signedList.payloadBytes, let signature = signedList.signatureBytes else {
            throw refuse(.malformedManifest, "the key list's payload or signature is not base64")
        }
        guard let root = configuration.verifiers.first(where: { $0.isValidSignature(signature, for: payload) }) else {
            throw refuse(
                .untrustedKeyList,
                "the key list (signed by key id \(signedList.keyId.prefix(32))) does not verify with any pinned root key"
            )
        }
        let list: SigningKeyList
        do {
            list = try signedList.decodedList()
        } catch {
            throw refuse(
                .malformedManifest,
                "the key list is not JSON of a key list: \(DecodingFailure.describe(error).prefix(200))")
        }
        if let problem = list.problem { throw refuse(.malformedManifest, problem) }
        guard !checkingExpiry || list.expiresAt > clock.now else {
            throw refuse(
                .expiredKeyList,
                "key list version \(list.version) expired at \(list.expiresAt); re-sign it with a root key")
        }
        guard list.version >= keyListVersion else {
            throw refuse(
                .rollback,
                "key list version \(list.version) is older than version \(keyListVersion), the installed generation's")
        }
        guard let key = list.keys.first(where: { $0.id == signed.keyId }) else {
            throw refuse(
                .revokedKey,
                "key id \(signed.keyId.prefix(32)) is not on key list version \(list.version): revoked, or never listed"
            )
        }
        guard let bytes = key.publicKeyBytes, let verifier = root.verifier(forListedKey: bytes) else {
            throw refuse(
                .untrustedKeyList,
                "listed key \(key.id.prefix(32)) cannot be checked: the pinned verifier checks only its own key")
        }
        return [verifier]
    }

    /// The published set's refusal with `code`, located at the manifest.
    private func refuse(_ code: SnapshotUpdateError.Code, _ message: String) -> SnapshotUpdateError {
        SnapshotUpdateError(code, message, location: configuration.manifestURL.absoluteString)
    }
}
