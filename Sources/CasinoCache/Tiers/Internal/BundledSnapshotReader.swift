import CasinoCatalog
import Foundation
import Gzip

/// Reads and verifies the manifest and the snapshot files of a bundled snapshot directory.
///
/// The checks follow the format's reading order (`SnapshotFormat.md`, "Verifying a File"), minus
/// SHA-256, which the runtime does not carry: safe path, regular file, sizes against the manifest
/// and the caps, gzip CRC and length, the envelope's schema version, key, kind, edition and content
/// hash, and the schema rules on the payload.
enum BundledSnapshotReader {
    /// Reads `manifest.json` from `directory`.
    ///
    /// The schema version is checked before the shape, so a manifest from a newer pipeline is
    /// reported as foreign rather than corrupt.
    ///
    /// - Throws: ``BundledFailure`` for a missing, oversized, corrupt or foreign-schema manifest,
    ///   or one whose default edition is not among its editions.
    static func manifest(in directory: URL, maxBytes: Int) throws(BundledFailure) -> Manifest {
        let data = try BundledFileReader.contents(of: Manifest.fileName, in: directory, maxBytes: maxBytes)
        let decoder = CatalogCoding.decoder()
        // Decoded once; only when that fails is the version probed, so a manifest from a newer
        // pipeline is reported as foreign rather than corrupt (a second decode of every launch's
        // manifest cost a fifth of the time to first content).
        let manifest: Manifest
        do {
            manifest = try decoder.decode(Manifest.self, from: data)
        } catch {
            if let version = try? decoder.decode(SchemaVersionProbe.self, from: data).schemaVersion,
                version != CatalogSchema.version
            {
                throw foreignSchema(version)
            }
            throw BundledFailure(.undecodable, "\(Manifest.fileName) is not a manifest: \(describe(error))")
        }
        guard manifest.schemaVersion == CatalogSchema.version else { throw foreignSchema(manifest.schemaVersion) }
        guard manifest.editions.contains(manifest.defaultEdition) else {
            throw BundledFailure(
                .wrongContent, "\(Manifest.fileName): default edition \(manifest.defaultEdition) is not bundled")
        }
        return manifest
    }

    private static func foreignSchema(_ version: Int) -> BundledFailure {
        BundledFailure(
            .foreignSchema, "\(Manifest.fileName) has schema version \(version); this app reads \(CatalogSchema.version)")
    }

    /// Reads, inflates, decodes and verifies the snapshot file `entry` describes.
    ///
    /// - Parameters:
    ///   - entry: The manifest's entry for the file.
    ///   - directory: The snapshot directory.
    ///   - maxFileBytes: The cap on the file, compressed and decompressed.
    /// - Returns: The payload, as cache content.
    /// - Throws: ``BundledFailure`` naming the first check that failed.
    static func content(
        of entry: Manifest.Entry, in directory: URL, maxFileBytes: Int
    ) throws(BundledFailure) -> CatalogContent {
        guard entry.compressedBytes >= 0, entry.uncompressedBytes >= 0 else {
            throw BundledFailure(.sizeMismatch, "the manifest gives \(entry.path) a negative size")
        }
        guard entry.compressedBytes <= maxFileBytes, entry.uncompressedBytes <= maxFileBytes else {
            throw BundledFailure(
                .tooLarge,
                "the manifest gives \(entry.path) \(entry.compressedBytes) bytes inflating to "
                    + "\(entry.uncompressedBytes); the limit is \(maxFileBytes)")
        }
        let packed = try BundledFileReader.contents(
            of: entry.path, in: directory, maxBytes: maxFileBytes, expectedBytes: entry.compressedBytes)
        let json: Data
        do {
            json = try Gzip.decompress(packed, limit: entry.uncompressedBytes, expectedSize: entry.uncompressedBytes)
        } catch {
            throw BundledFailure(.gzip, "\(entry.path): \(error)")
        }

        let content: CatalogContent
        switch entry.key {
        case .categories:
            content = .categories(try payload(CategoryList.self, from: json, entry: entry))
        case .gamesPage(_, let categoryId, let offset):
            let page = try payload(GamesPage.self, from: json, entry: entry)
            guard page.categoryId == categoryId, page.offset == offset else {
                throw BundledFailure(
                    .wrongContent,
                    "\(entry.path) holds page \(page.offset) of '\(page.categoryId.prefix(128))', not \(entry.key)")
            }
            content = .gamesPage(page)
        }
        let violations = content.violations()
        guard violations.isEmpty else {
            let shown = violations.prefix(3).map(\.description).joined(separator: "; ")
            throw BundledFailure(
                .invalidContent, "\(entry.path) breaks \(violations.count) schema rule(s): \(shown)")
        }
        return content
    }

    private static func payload<Payload: Codable & Sendable & Hashable>(
        _ type: Payload.Type, from json: Data, entry: Manifest.Entry
    ) throws(BundledFailure) -> Payload {
        let snapshot: Snapshot<Payload>
        do {
            snapshot = try CatalogCoding.decoder().decode(Snapshot<Payload>.self, from: json)
        } catch {
            throw BundledFailure(.undecodable, "\(entry.path) is not a \(entry.kind) snapshot: \(describe(error))")
        }
        guard snapshot.schemaVersion == CatalogSchema.version else {
            throw BundledFailure(
                .foreignSchema,
                "\(entry.path) has schema version \(snapshot.schemaVersion); this app reads \(CatalogSchema.version)")
        }
        guard snapshot.key == entry.key, snapshot.kind == entry.kind, snapshot.edition == entry.edition else {
            throw BundledFailure(.wrongContent, "\(entry.path) holds \(snapshot.key), the manifest says \(entry.key)")
        }
        // Compared as strings, never recomputed: re-encoded JSON differs between platforms.
        guard snapshot.contentHash == entry.contentHash else {
            throw BundledFailure(.wrongContent, "\(entry.path): content hash differs from the manifest's")
        }
        return snapshot.payload
    }

    /// A short, single-line account of a decoding error (its path and reason).
    private static func describe(_ error: any Error) -> String {
        let text: String
        switch error {
        case DecodingError.dataCorrupted(let context), DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            text = path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            text = "\(error)"
        }
        return String(text.prefix(300))
    }

    private struct SchemaVersionProbe: Decodable {
        var schemaVersion: Int
    }
}
