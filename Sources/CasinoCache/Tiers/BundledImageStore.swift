@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
import Foundation
public import Logging

/// The images of the bundled snapshot (the manifest's `images`), looked up by URL, synchronously,
/// cheaply enough for a table cell.
///
/// Nothing is read at launch. The first lookup of a URL reads the image list and indexes it; the
/// first lookup of a file reads it (contained in the snapshot directory, no link followed, its size
/// checked before it is read), checks its SHA-256 (``SHA256Digest``) and sniffs its type against
/// the manifest, and remembers the verdict. A verified file's bytes stay in memory up to
/// ``memoryLimit`` bytes in all, so later lookups cost a dictionary lookup under a lock; past the
/// limit a file is read again (size and type checked, the digest verdict kept). A file that fails
/// is answered `nil` from then on, counted once in ``corruptImages`` and logged at `.error` (the
/// app's own bundle is broken); nothing is thrown, nothing crashes.
///
/// ```swift
/// let image = bundled.images.image(for: "https://static.example-cdn.com/c/34795.jpg")
/// ```
@_spi(CatalogTools) public final class BundledImageStore: Sendable {
    /// The most bytes of verified images kept in memory: 4 MiB by default.
    public let memoryLimit: Int

    private enum Verdict {
        case verified
        case unusable
    }

    private struct State {
        var index: [String: Manifest.Image]?
        var verdicts: [String: Verdict] = [:]
        var bytes: [String: Data] = [:]
        var bytesHeld = 0
        var corrupt = 0
    }

    /// The snapshot's image list, read once, on the first lookup.
    private let listedImages: @Sendable () -> [Manifest.Image]
    private let reader: SnapshotReader?
    private let logger: Logger
    private let state = Locked(State())

    /// The images of `manifest`, read with `reader`.
    public convenience init(
        manifest: Manifest?, reader: SnapshotReader?, memoryLimit: Int = 4 << 20, logger: Logger = .casinoCacheDisabled
    ) {
        let images = manifest?.images ?? []
        self.init(images: { images }, reader: reader, memoryLimit: memoryLimit, logger: logger)
    }

    /// The images `images` lists when first asked (the bundled tier reads the snapshot's image
    /// list then, not at launch), read with `reader`.
    public init(
        images: @escaping @Sendable () -> [Manifest.Image], reader: SnapshotReader?, memoryLimit: Int = 4 << 20,
        logger: Logger = .casinoCacheDisabled
    ) {
        listedImages = images
        self.reader = reader
        self.memoryLimit = max(memoryLimit, 0)
        self.logger = logger
    }

    /// How many image URLs the snapshot bundles (reads the image list on first use).
    public var count: Int { state.withLock { state in index(in: &state).count } }

    /// Whether the snapshot lists `url` (without reading or verifying its file).
    public func contains(_ url: String) -> Bool {
        state.withLock { state in index(in: &state)[url] != nil }
    }

    /// How many image files failed verification so far (each counted once).
    public var corruptImages: Int { state.withLock { $0.corrupt } }

    /// The verified image for `url`, or `nil` when it is not bundled or its file is unusable.
    public func image(for url: String) -> BundledImage? {
        let (entry, cached, verdict) = state.withLock { state -> (Manifest.Image?, Data?, Verdict?) in
            guard let entry = index(in: &state)[url] else { return (nil, nil, nil) }
            return (entry, state.bytes[entry.path], state.verdicts[entry.path])
        }
        guard let entry else { return nil }
        if let cached { return BundledImage(url: url, data: cached, mediaType: entry.mediaType) }
        if verdict == .unusable { return nil }
        guard let data = load(entry, checksum: verdict == nil) else { return nil }
        return BundledImage(url: url, data: data, mediaType: entry.mediaType)
    }

    /// The snapshot's images by URL, built on first use, under the lock so the list is read once
    /// (the first entry of a repeated URL wins; a list that repeats one breaks the contract anyway).
    private func index(in state: inout State) -> [String: Manifest.Image] {
        if let index = state.index { return index }
        let index = Dictionary(listedImages().map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        state.index = index
        return index
    }

    /// Reads and checks `entry`'s file outside the lock, then records the verdict (and the bytes,
    /// within the memory limit). Two threads loading one file may both read it; one failure is
    /// counted once.
    private func load(_ entry: Manifest.Image, checksum: Bool) -> Data? {
        guard let reader else { return nil }
        do {
            let data = try reader.image(entry, verifyingChecksum: checksum)
            state.withLock { state in
                state.verdicts[entry.path] = .verified
                if state.bytes[entry.path] == nil, state.bytesHeld + data.count <= memoryLimit {
                    state.bytes[entry.path] = data
                    state.bytesHeld += data.count
                }
            }
            return data
        } catch {
            let isNew = state.withLock { state -> Bool in
                state.bytes[entry.path] = nil
                guard state.verdicts[entry.path] != .unusable else { return false }
                state.verdicts[entry.path] = .unusable
                state.corrupt += 1
                return true
            }
            if isNew {
                logger.error(
                    "Bundled image failed verification; not serving it",
                    metadata: [
                        "cache.image": "\(entry.url.prefix(256))", "cache.file": "\(entry.path.prefix(256))",
                        "cache.reason": "\(error)",
                    ])
            }
            return nil
        }
    }
}
