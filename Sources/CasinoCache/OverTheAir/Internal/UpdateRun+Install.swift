@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
import Foundation
import Logging

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension UpdateRun {
    /// How many files and bytes an install fetched and reused.
    private struct Tally {
        var downloaded = 0
        var bytes = 0
        var reused = 0

        mutating func add(_ placed: Int?) {
            if let placed {
                downloaded += 1
                bytes += placed
            } else {
                reused += 1
            }
        }
    }

    /// Builds the generation in `generations/.incoming-<uuid>`, checks it as the bundled tier
    /// will read it, and makes it current, retiring the one `current` (the pointer read at the
    /// check's start) names; `previous` is that generation when it reads. Anything that fails
    /// removes the incoming directory; the current generation is untouched until the last rename.
    func install(
        _ verified: VerifiedManifest, replacing current: GenerationStore.Pointer?,
        previous: (GenerationStore.Pointer, Manifest)?
    ) async throws -> SnapshotUpdater.Installation {
        let published = verified.manifest
        let incoming = try store.makeIncoming()
        var isCommitted = false
        defer { if !isCommitted { try? FileManager.default.removeItem(at: incoming) } }
        let sources = localSources(previous: previous?.0)
        var tally = Tally()

        // The snapshot's manifest first: the signed list must be the list it gives.
        tally.add(try await place(published.manifest, in: incoming, sources: sources))
        let reader = SnapshotReader(directory: incoming, limits: configuration.snapshotLimits)
        let snapshot: Manifest
        do {
            snapshot = try reader.manifest()
        } catch {
            throw SnapshotUpdateError(
                .invalidSnapshot, "\(error)", location: configuration.manifestURL.absoluteString, cause: error)
        }
        try checkAgreement(of: snapshot, with: published)

        var directories = Set(
            published.files.map { ($0.path as NSString).deletingLastPathComponent }.filter { !$0.isEmpty })
        for directory in directories.sorted() {
            do {
                try FileManager.default.createDirectory(
                    at: incoming.appendingPathComponent(directory), withIntermediateDirectories: true)
            } catch {
                throw SnapshotUpdateError(
                    .io, "cannot create a directory: \(error.localizedDescription)", location: directory, cause: error)
            }
        }
        try await withThrowingTaskGroup(of: Int?.self) { group in
            var pending = published.files.makeIterator()
            for _ in 0..<configuration.maxConcurrentDownloads {
                guard let file = pending.next() else { break }
                group.addTask { try await place(file, in: incoming, sources: sources) }
            }
            while let placed = try await group.next() {
                tally.add(placed)
                if let file = pending.next() { group.addTask { try await place(file, in: incoming, sources: sources) } }
            }
        }

        // What the bundled tier will check on first use, checked now for every file.
        for entry in snapshot.files {
            do {
                switch entry.kind {
                case .categories: _ = try reader.categories(of: entry, in: snapshot)
                case .gamesPage: _ = try reader.gamesPage(of: entry, in: snapshot)
                }
            } catch {
                throw SnapshotUpdateError(.invalidSnapshot, "\(error)", location: entry.path, cause: error)
            }
        }
        for image in snapshot.imageFiles {
            do {
                _ = try reader.image(image)
            } catch {
                throw SnapshotUpdateError(.invalidSnapshot, "\(error)", location: image.path, cause: error)
            }
        }
        try writeIndex(of: snapshot, into: incoming)
        directories.insert(SnapshotIndex.partsDirectory)
        try GenerationStore.writeSynced(
            verified.signedBytes, to: incoming.appendingPathComponent(GenerationStore.publishedName))
        directories.insert("")
        for directory in directories { GenerationStore.syncDirectory(incoming.appendingPathComponent(directory)) }

        let name = GenerationStore.newGenerationName(version: published.version)
        guard gate.commit() else { throw CancellationError() }
        let now = clock.now
        let retention = configuration.retiredGenerationRetention
        let pointer =
            current?.succeeded(
                by: name, version: published.version, etag: verified.etag, now: now, retention: retention)
            ?? GenerationStore.Pointer(generation: name, version: published.version, etag: verified.etag)
        try store.commit(incoming, as: name, pointer: pointer)
        isCommitted = true
        // What the new pointer no longer keeps (past the retention, or the 17th replaced) goes now.
        store.removeLeftovers(launch: launchGeneration, pointer: pointer, now: now, retention: retention)
        logger.info(
            "Installed published snapshot; it serves from the next launch",
            metadata: [
                "ota.version": "\(published.version)", "ota.generation": "\(name)",
                "ota.downloaded": "\(tally.downloaded)",
                "ota.bytes": "\(tally.bytes)", "ota.reused": "\(tally.reused)",
            ])
        return SnapshotUpdater.Installation(
            version: published.version, previousVersion: previous?.0.version,
            directory: store.generationDirectory(name),
            filesDownloaded: tally.downloaded, bytesDownloaded: tally.bytes, filesReused: tally.reused,
            withdrawals: published.withdrawals)
    }

    /// Writes the generation's `SnapshotIndex`, derived from its checked manifest here (published
    /// sets carry no index), so the bundled tier reads only what an edition holds at launch. A
    /// listed file already at an index path makes the install fail: nothing is overwritten.
    private func writeIndex(of snapshot: Manifest, into incoming: URL) throws {
        let files: [(path: String, data: Data)]
        do {
            files = try SnapshotIndex.files(for: snapshot)
        } catch {
            throw SnapshotUpdateError(
                .invalidSnapshot, "cannot index the snapshot: \(error)", location: SnapshotIndex.fileName, cause: error)
        }
        let parts = incoming.appendingPathComponent(SnapshotIndex.partsDirectory)
        do {
            try FileManager.default.createDirectory(at: parts, withIntermediateDirectories: true)
        } catch {
            throw SnapshotUpdateError(
                .io, "cannot create a directory: \(error.localizedDescription)", location: parts.path, cause: error)
        }
        for file in files {
            try GenerationStore.writeSynced(file.data, to: incoming.appendingPathComponent(file.path))
        }
    }

    /// The signed list and the snapshot's own manifest must name the same files, sizes and hashes.
    private func checkAgreement(of snapshot: Manifest, with published: PublishedManifest) throws {
        let listed = Set(published.files)
        let given = Set(PublishedManifest.File.listed(in: snapshot))
        guard listed == given, snapshot.contentHash == published.contentHash,
            snapshot.generatedAt == published.generatedAt,
            snapshot.contentHashViolation() == nil
        else {
            throw SnapshotUpdateError(
                .invalidSnapshot,
                "the snapshot's manifest disagrees with the signed one (files, contentHash or generatedAt)",
                location: configuration.manifestURL.absoluteString)
        }
    }

    /// Every file the installed generation and the bundle hold, by SHA-256, their manifests included.
    private func localSources(previous: GenerationStore.Pointer?) -> [String: URL] {
        var sources: [String: URL] = [:]
        let candidates = [previous.map { store.generationDirectory($0.generation) }, configuration.bundleDirectory]
        for directory in candidates.compactMap({ $0 }) {
            let manifestURL = directory.appendingPathComponent(Manifest.fileName)
            guard
                let bytes = try? GenerationStore.readRegularFile(
                    manifestURL, maxBytes: configuration.snapshotLimits.maxManifestBytes),
                let manifest = try? CatalogCoding.decoder().decode(Manifest.self, from: bytes)
            else { continue }
            sources[SHA256Digest.hex(bytes), default: manifestURL] = manifestURL
            for entry in PublishedManifest.File.listed(in: manifest)
            where CatalogRules.isSafeRelativePath(entry.path) && PublishedManifest.isSHA256Hex(entry.sha256) {
                sources[entry.sha256, default: directory.appendingPathComponent(entry.path)] =
                    directory.appendingPathComponent(entry.path)
            }
        }
        return sources
    }

    /// Puts `file` at its path in `incoming`: hard-linked or copied from a local file with its
    /// hash, else downloaded. Either way its size and SHA-256 are checked on the bytes in place.
    ///
    /// - Returns: The bytes downloaded, or `nil` when a local copy served.
    private func place(_ file: PublishedManifest.File, in incoming: URL, sources: [String: URL]) async throws -> Int? {
        let target = incoming.appendingPathComponent(file.path)
        if let source = sources[file.sha256] {
            if link(source.path, target.path) == 0 {
                if let linked = try? GenerationStore.readRegularFile(target, maxBytes: file.bytes),
                    Self.holds(linked, file)
                {
                    return nil
                }
                unlink(target.path)
            } else if let data = try? GenerationStore.readRegularFile(source, maxBytes: file.bytes),
                Self.holds(data, file)
            {
                try GenerationStore.writeSynced(data, to: target)
                return nil
            }
        }
        try Task.checkCancellation()
        let url = configuration.manifestURL.deletingLastPathComponent()
            .appendingPathComponent(PublishedManifest.filesDirectory).appendingPathComponent(file.sha256)
        let body: Data
        do {
            // A 304 cannot come without an ETag sent; `nil` here would be a server bug.
            body = try await get(url, etag: nil, maxBytes: file.bytes)?.body ?? Data()
        } catch let error as SnapshotUpdateError where error.code == .overLimit {
            throw SnapshotUpdateError(
                .sizeMismatch, "\(file.path): longer than the \(file.bytes) bytes signed", location: url.absoluteString)
        }
        guard body.count == file.bytes else {
            throw SnapshotUpdateError(
                .sizeMismatch, "\(file.path): \(body.count) bytes, the signed manifest says \(file.bytes)",
                location: url.absoluteString)
        }
        guard SHA256Digest.hex(body) == file.sha256 else {
            throw SnapshotUpdateError(
                .checksumMismatch, "\(file.path): the SHA-256 differs from the signed manifest's",
                location: url.absoluteString)
        }
        try GenerationStore.writeSynced(body, to: target)
        return body.count
    }

    private static func holds(_ data: Data, _ file: PublishedManifest.File) -> Bool {
        data.count == file.bytes && SHA256Digest.hex(data) == file.sha256
    }
}
