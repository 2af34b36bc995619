import CatalogSupport
public import Foundation
@_spi(CatalogTools) import Gzip

/// Reads and verifies a snapshot directory: the one reader of the snapshot contract, used by the
/// pipeline's validator, the app's bundled tier and the over-the-air updater alike, so all three
/// accept exactly the same files.
///
/// Every file is hostile input. ``manifest()`` checks the manifest's size, schema version and rules
/// before any file is opened; ``categories(of:in:packed:)`` and ``gamesPage(of:in:packed:)`` open a
/// file inside the directory only and check its size, SHA-256, gzip, envelope and payload against
/// its manifest entry, in the order <doc:SnapshotFormat> gives. Canonical bytes are a build-time
/// property: checked only with ``requiresCanonicalBytes`` (the pipeline's validator).
///
/// ```swift
/// let reader = SnapshotReader(directory: URL(fileURLWithPath: "out"))
/// let manifest = try reader.manifest()
/// let page = try reader.gamesPage(of: manifest.files[1], in: manifest)
/// ```
@_spi(CatalogTools) public struct SnapshotReader: Sendable {
    /// The snapshot directory.
    public var directory: URL
    /// The caps every read applies.
    public var limits: SnapshotLimits
    /// Whether a file's inflated JSON must also be canonical (`CanonicalJSON`): what the
    /// pipeline's validator proves at build time, so that content hashes agree everywhere. An app
    /// need not repeat it: a file's SHA-256 already matches the manifest's, so its bytes are the
    /// ones the validator read.
    public var requiresCanonicalBytes: Bool
    /// A file's SHA-256 as 64 lowercase hex digits.
    private let sha256Hex: @Sendable (Data) -> String
    /// The directories kept open for reading files, when the reader was made to keep them.
    let directories: ContainedDirectories?

    /// - Parameters:
    ///   - directory: The snapshot directory.
    ///   - limits: The caps every read applies; ``SnapshotLimits/default`` by default. Caps outside
    ///     `1...SnapshotLimits.ceiling` make every read fail with `SnapshotReadError/Code/tooLarge`.
    ///   - requiresCanonicalBytes: Whether a file's JSON must be canonical; `false` by default.
    ///   - sha256Hex: How a file's SHA-256 is computed, as lowercase hex: the runtime's own by
    ///     default (CryptoKit's on Apple platforms); the pipeline passes swift-crypto's.
    ///   - keepsDirectoriesOpen: Whether the directories that several files lie below (an edition's,
    ///     its `games`) stay open for the reader's lifetime (at most 8, shared by its copies), so that
    ///     reading a file opens two directories instead of every one on its path: for a reader of many
    ///     files, as the app's bundled tier is. `false` by default. Either way no symbolic link on a
    ///     file's path is followed.
    public init(
        directory: URL, limits: SnapshotLimits = .default, requiresCanonicalBytes: Bool = false,
        sha256Hex: (@Sendable (Data) -> String)? = nil, keepsDirectoriesOpen: Bool = false
    ) {
        self.directory = directory
        self.limits = limits
        self.requiresCanonicalBytes = requiresCanonicalBytes
        self.sha256Hex = sha256Hex ?? { SHA256Digest.hex($0) }
        directories = keepsDirectoriesOpen ? ContainedDirectories(directory: directory) : nil
    }

    // MARK: - Manifest

    /// Reads, decodes and checks `manifest.json` against the contract.
    ///
    /// - Throws: `SnapshotReadError`: the manifest is missing, a link, over
    ///   ``SnapshotLimits/maxManifestBytes``, not JSON of a manifest, of another schema version
    ///   (`SnapshotReadError/Code/foreignSchema`), or breaks a rule
    ///   (`SnapshotReadError/Code/invalidManifest`, every rule in `violations`).
    public func manifest() throws(SnapshotReadError) -> Manifest {
        let manifest = try decodedManifest()
        try require(manifest.violations(limits: limits), file: Manifest.fileName)
        return manifest
    }

    /// Reads and decodes `manifest.json` without checking its rules, for a validator that
    /// reports every broken rule and goes on to the files.
    ///
    /// - Throws: `SnapshotReadError` as ``manifest()`` does, but never
    ///   `SnapshotReadError/Code/invalidManifest`.
    public func decodedManifest() throws(SnapshotReadError) -> Manifest {
        let data = try tableOfContents(Manifest.fileName)
        let manifest = try decoded(Manifest.self, from: data, file: Manifest.fileName, what: "a manifest")
        guard manifest.schemaVersion == CatalogSchema.version else {
            throw foreignSchema(manifest.schemaVersion, file: Manifest.fileName)
        }
        return manifest
    }

    // MARK: - Files

    /// The gzip bytes of the file `entry` describes, exactly as long as the manifest says.
    ///
    /// - Throws: `SnapshotReadError` for an unsafe path, a missing file, a link or other
    ///   non-regular file, a size outside the caps or other than the manifest's, or a failed read.
    public func packedBytes(of entry: Manifest.Entry) throws(SnapshotReadError) -> Data {
        try checkLimits(file: entry.path)
        guard (0...limits.maxFileBytes).contains(entry.compressedBytes) else {
            throw SnapshotReadError(
                .tooLarge, file: entry.path,
                "the manifest gives it \(entry.compressedBytes) bytes; the cap (maxFileBytes) is 0...\(limits.maxFileBytes)"
            )
        }
        return try ContainedFileReader.contents(
            of: entry.path, in: directory, maxBytes: limits.maxFileBytes, expectedBytes: entry.compressedBytes,
            directories: directories)
    }

    /// ``packedBytes(of:)``, refused unless their SHA-256 is the manifest's: the bytes to copy or
    /// publish as they are, without decoding them.
    ///
    /// - Throws: `SnapshotReadError` as ``packedBytes(of:)`` does, and `checksum-mismatch`.
    public func verifiedBytes(of entry: Manifest.Entry) throws(SnapshotReadError) -> Data {
        let packed = try packedBytes(of: entry)
        try requireDigest(of: packed, is: entry.sha256, file: entry.path)
        return packed
    }

    /// The edition's categories from the file `entry` describes.
    ///
    /// - Parameters:
    ///   - entry: A ``SnapshotKind/categories`` entry of `manifest`.
    ///   - manifest: The directory's manifest.
    ///   - packed: The file's bytes when the caller has read them (``packedBytes(of:)``), else `nil`.
    /// - Throws: `SnapshotReadError` naming the first check that failed; a payload that breaks
    ///   the schema's rules carries every rule in `violations`.
    public func categories(
        of entry: Manifest.Entry, in manifest: Manifest, packed: Data? = nil
    ) throws(SnapshotReadError) -> CategoryList {
        try snapshot(CategoryList.self, of: entry, in: manifest, packed: packed).payload
    }

    /// The page of games from the file `entry` describes.
    ///
    /// - Parameters:
    ///   - entry: A ``SnapshotKind/gamesPage`` entry of `manifest`.
    ///   - manifest: The directory's manifest.
    ///   - packed: The file's bytes when the caller has read them (``packedBytes(of:)``), else `nil`.
    /// - Throws: `SnapshotReadError` as ``categories(of:in:packed:)`` does.
    public func gamesPage(
        of entry: Manifest.Entry, in manifest: Manifest, packed: Data? = nil
    ) throws(SnapshotReadError) -> GamesPage {
        try snapshot(GamesPage.self, of: entry, in: manifest, packed: packed).payload
    }

    private func snapshot<Payload: SnapshotPayload>(
        _ type: Payload.Type, of entry: Manifest.Entry, in manifest: Manifest, packed given: Data?
    ) throws(SnapshotReadError) -> Snapshot<Payload> {
        guard entry.kind == Payload.kind else {
            throw SnapshotReadError(.wrongContent, file: entry.path, "is listed as \(entry.kind), not \(Payload.kind)")
        }
        let packed: Data
        if let given { packed = given } else { packed = try packedBytes(of: entry) }
        // Before anything is inflated: a file changed since the build is refused unread.
        try requireDigest(of: packed, is: entry.sha256, file: entry.path)
        guard (0...limits.maxInflatedBytes).contains(entry.uncompressedBytes) else {
            throw SnapshotReadError(
                .tooLarge, file: entry.path,
                "the manifest gives it \(entry.uncompressedBytes) bytes of JSON; the cap (maxInflatedBytes) is 0...\(limits.maxInflatedBytes)"
            )
        }
        let json: Data
        do {
            json = try Gzip.decompress(packed, limit: entry.uncompressedBytes, expectedSize: entry.uncompressedBytes)
        } catch {
            throw SnapshotReadError(.gzip, file: entry.path, "\(error)")
        }
        let snapshot = try decoded(
            Snapshot<Payload>.self, from: json, file: entry.path, what: "a \(entry.kind) snapshot")
        try check(snapshot, against: entry, in: manifest)
        // Last, so a file that breaks a rule is named by that rule. Canonical bytes are what makes
        // content hashes agree between build machines and with a server.
        guard requiresCanonicalBytes else { return snapshot }
        do {
            try CanonicalJSON.requireCanonical(json)
        } catch {
            let why = error.code == .notCanonical ? "" : " (\(error.code))"
            throw SnapshotReadError(
                .notCanonical, file: entry.path,
                "is not canonical JSON, from byte \(error.offset): \(error.message)\(why)")
        }
        return snapshot
    }

    /// The envelope and the payload against the manifest's entry, then the schema's rules.
    private func check<Payload: SnapshotPayload>(
        _ snapshot: Snapshot<Payload>, against entry: Manifest.Entry, in manifest: Manifest
    ) throws(SnapshotReadError) {
        func mismatch(_ record: String, _ message: String) -> SnapshotReadError {
            SnapshotReadError(.wrongContent, file: entry.path, record: record, message)
        }
        guard snapshot.schemaVersion == CatalogSchema.version else {
            throw foreignSchema(snapshot.schemaVersion, file: entry.path)
        }
        guard snapshot.key == entry.key else {
            throw mismatch("key", "is \(snapshot.key), the manifest says \(entry.key)")
        }
        guard snapshot.kind == entry.kind else {
            throw mismatch("kind", "is \(snapshot.kind.rawValue), expected \(entry.kind.rawValue)")
        }
        guard snapshot.edition == entry.edition else {
            throw mismatch("edition", "is \(snapshot.edition), expected \(entry.edition)")
        }
        // Compared as strings, never recomputed: re-encoded JSON differs between platforms.
        guard snapshot.contentHash == entry.contentHash else {
            throw mismatch(
                "contentHash", "is \(snapshot.contentHash.prefix(80)), the manifest says \(entry.contentHash)")
        }
        // Not after the manifest's: a file whose content did not change keeps its bytes, date
        // included, from the snapshot that first wrote it.
        guard snapshot.generatedAt <= manifest.generatedAt else {
            throw mismatch("generatedAt", "is after the manifest's")
        }
        let violations = snapshot.payload.violations()
        guard violations.isEmpty else {
            throw SnapshotReadError(
                .invalidContent, file: entry.path, record: "payload",
                "breaks \(violations.count) schema rule(s)",
                violations: violations.map { $0.nested(under: "payload") })
        }
        if let (record, message) = snapshot.payload.disagreement(with: entry, in: manifest) {
            throw mismatch(record, message)
        }
    }

    /// Refuses `data` unless its SHA-256 is `expected` (the manifest's), as `checksum-mismatch`.
    func requireDigest(of data: Data, is expected: String, file: String) throws(SnapshotReadError) {
        let digest = sha256Hex(data)
        guard digest == expected else {
            throw SnapshotReadError(
                .checksumMismatch, file: file,
                "SHA-256 is \(digest), the manifest says \(expected.prefix(64)) (the file was changed)")
        }
    }

    /// `json` decoded as `type`. One that does not decode is probed for its schema version only
    /// then, so a file from a newer pipeline is named as such instead of as corrupt (probing every
    /// file would cost a fifth of the time to first content).
    func decoded<Value: Decodable>(
        _ type: Value.Type, from json: Data, file: String, what: String
    ) throws(SnapshotReadError) -> Value {
        let decoder = CatalogCoding.decoder()
        do {
            return try decoder.decode(type, from: json)
        } catch {
            if let version = try? decoder.decode(SchemaVersionProbe.self, from: json).schemaVersion,
                version != CatalogSchema.version
            {
                throw foreignSchema(version, file: file)
            }
            throw SnapshotReadError(
                .undecodable, file: file, "is not \(what): \(DecodingFailure.describe(error).prefix(300))")
        }
    }

    /// `manifest.json` or a file of the index: read whole, within ``SnapshotLimits/maxManifestBytes``.
    func tableOfContents(_ file: String) throws(SnapshotReadError) -> Data {
        try checkLimits(file: file)
        return try ContainedFileReader.contents(of: file, in: directory, maxBytes: limits.maxManifestBytes)
    }

    /// Refuses `file` as `invalid-manifest` when it breaks rules, every rule in `violations`.
    func require(_ violations: [Violation], file: String) throws(SnapshotReadError) {
        guard violations.isEmpty else {
            throw SnapshotReadError(
                .invalidManifest, file: file, "breaks \(violations.count) rule(s) of the snapshot contract",
                violations: violations)
        }
    }

    func checkLimits(file: String) throws(SnapshotReadError) {
        if let problem = limits.problem {
            throw SnapshotReadError(.tooLarge, file: file, "unusable snapshot limits: \(problem)")
        }
    }

    func foreignSchema(_ version: Int, file: String) -> SnapshotReadError {
        SnapshotReadError(
            .foreignSchema, file: file, record: "schemaVersion",
            "is \(version), this build reads \(CatalogSchema.version); regenerate the snapshot with a matching catalog")
    }

    struct SchemaVersionProbe: Decodable {
        var schemaVersion: Int
    }
}

/// A payload a snapshot file may hold, and what it must agree on with its manifest entry.
protocol SnapshotPayload: Codable, Sendable, Hashable, Validatable {
    static var kind: SnapshotKind { get }
    /// The first field that disagrees with `entry` (record path and message), or `nil`. Only
    /// called on a payload that keeps the schema's rules, so its numbers are within range.
    func disagreement(with entry: Manifest.Entry, in manifest: Manifest) -> (String, String)?
}

extension CategoryList: SnapshotPayload {
    static var kind: SnapshotKind { .categories }

    func disagreement(with entry: Manifest.Entry, in manifest: Manifest) -> (String, String)? {
        guard entry.count == items.count, entry.total == items.count else {
            return (
                "payload.items",
                "holds \(items.count) categories, the manifest says count \(entry.count), total \(entry.total)"
            )
        }
        return nil
    }
}

extension GamesPage: SnapshotPayload {
    static var kind: SnapshotKind { .gamesPage }

    func disagreement(with entry: Manifest.Entry, in manifest: Manifest) -> (String, String)? {
        if case .gamesPage(_, let categoryId, let offset) = entry.key,
            categoryId != self.categoryId || offset != self.offset
        {
            return (
                "payload", "is page \(self.categoryId.prefix(128))@\(self.offset), the key says \(categoryId)@\(offset)"
            )
        }
        if limit != manifest.pageSize {
            return ("payload.limit", "is \(limit), the manifest's pageSize is \(manifest.pageSize)")
        }
        if entry.count != count || entry.total != total {
            return (
                "payload",
                "count \(count) / total \(total) disagree with the manifest's \(entry.count) / \(entry.total)"
            )
        }
        return nil
    }
}
