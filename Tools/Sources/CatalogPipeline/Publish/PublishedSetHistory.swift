@_spi(CatalogTools) import CasinoCatalog
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The versions a published set already holds: its current `manifest.json` and every copy in
/// `manifests/<version>.json`. A publish reads it to pick the next version, and records the new
/// signed manifest in it.
struct PublishedSetHistory {
    let directory: URL
    /// The highest version published, or `nil` for a new set.
    let lastVersion: Int?
    /// The sequence of the withdrawal list the current `manifest.json` signs, or `nil`.
    let lastWithdrawalSequence: Int?

    /// Reads the set in `directory`; a missing or empty directory is a new set.
    ///
    /// - Throws: ``PipelineError`` `.outputNotReplaceable` when `directory` is a file, or holds a
    ///   `manifest.json` that is not a signed manifest (a snapshot directory given by mistake).
    init(directory: URL) throws(PipelineError) {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
            lastVersion = nil
            lastWithdrawalSequence = nil
            return
        }
        guard isDirectory.boolValue else {
            throw PipelineError(.outputNotReplaceable, "is a file, not a published set", file: directory.relativePath)
        }
        var versions = Self.recordedVersions(in: directory.appendingPathComponent(SnapshotPublisher.historyDirectory))
        let current = directory.appendingPathComponent(SignedManifest.fileName)
        var withdrawalSequence: Int?
        if FileManager.default.fileExists(atPath: current.path) {
            let manifest = try Self.manifest(at: current)
            versions.append(manifest.version)
            withdrawalSequence = manifest.withdrawals?.sequence
        }
        lastVersion = versions.max()
        lastWithdrawalSequence = withdrawalSequence
    }

    /// The signed manifest at `url`, without checking its signature (the key may have been rotated
    /// since).
    private static func manifest(at url: URL) throws(PipelineError) -> PublishedManifest {
        let data = try FileInput.read(url, limit: SignedManifest.defaultMaxBytes, what: "the published manifest")
        guard let signed = try? CatalogCoding.decoder().decode(SignedManifest.self, from: data),
            signed.format == SignedManifest.currentFormat, let payload = signed.payloadBytes,
            let manifest = try? PublishedManifest.decode(payload, maxFileCount: Int.max)
        else {
            throw PipelineError(
                .outputNotReplaceable,
                "is not a signed manifest of a published set; publish into an empty or new directory, or a set "
                    + "catalog publish wrote",
                file: url.relativePath)
        }
        return manifest
    }

    /// The versions named `<version>.json` in the history folder.
    private static func recordedVersions(in history: URL) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: history.path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".json") else { return nil }
            return Int(name.dropLast(5)).flatMap { $0 > 0 ? $0 : nil }
        }
    }

    /// Writes `manifests/<version>.json`, which must not exist (`O_EXCL`).
    func record(_ data: Data, version: Int) throws(PipelineError) {
        let history = directory.appendingPathComponent(SnapshotPublisher.historyDirectory)
        let url = history.appendingPathComponent("\(version).json")
        do {
            try FileManager.default.createDirectory(at: history, withIntermediateDirectories: true)
        } catch {
            throw PipelineError(
                .io, "cannot create the directory: \(error.localizedDescription)", file: history.relativePath)
        }
        let error = FileOutput.createFile(atPath: url.path, contents: data)
        guard error == 0 else {
            throw PipelineError(
                error == EEXIST ? .outputNotReplaceable : .io,
                error == EEXIST ? "version \(version) was published already" : String(cString: strerror(error)),
                file: url.relativePath)
        }
    }
}
