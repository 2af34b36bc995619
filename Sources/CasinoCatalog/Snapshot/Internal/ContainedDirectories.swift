import CatalogSupport
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The directories of one snapshot directory that several of its files lie below, each opened once
/// as ``ContainedFileReader`` opens them (`openat(O_NOFOLLOW)` a component at a time: a symbolic
/// link anywhere is refused) and kept open while this lives.
///
/// A reader of many files (the app's bundled tier) then resolves a page from its category's parent
/// (`en-iPhone/games`) instead of opening the snapshot directory and every directory on the path
/// again: two `openat` and two `close` instead of five of each. A file's own directory is opened
/// for each read and closed after it, so that the descriptors kept stay few (at most
/// ``maxKept``) whatever the number of categories. A descriptor is never closed while this lives:
/// no read can find its number reused.
final class ContainedDirectories: Sendable {
    /// The snapshot directory.
    let directory: URL
    /// The most directories kept open; past it, the others are opened for each read.
    static let maxKept = 8
    /// Relative path (`""`: the snapshot directory) → descriptor.
    private let kept = Locked<[String: Int32]>([:])

    init(directory: URL) {
        self.directory = directory
    }

    deinit {
        kept.withLock { kept in
            for descriptor in kept.values { close(descriptor) }
        }
    }

    /// A descriptor of the directory `components` (relative to ``directory``; none: the directory
    /// itself), and whether the caller owns it (and closes it) or it is kept here.
    ///
    /// - Throws: ``SnapshotReadError`` naming `file` when a directory on the way is missing, a
    ///   symbolic link or not a directory.
    func descriptor(
        of components: ArraySlice<Substring>, for file: String
    ) throws(SnapshotReadError) -> (
        descriptor: Int32, isOwned: Bool
    ) {
        // The deepest ancestor kept; the directory itself is opened (and kept when it has room) too.
        var depth = components.count
        var current: (descriptor: Int32, isOwned: Bool)?
        while depth >= 0, current == nil {
            let key = Self.key(components.prefix(depth))
            if let descriptor = kept.withLock({ $0[key] }) { current = (descriptor, false) } else { depth -= 1 }
        }
        if current == nil {
            let root = try ContainedFileReader.openDirectory(directory, for: file)
            current = keep(root, as: "")
            depth = 0
        }
        guard var (descriptor, isOwned) = current else { preconditionFailure("opened above") }
        for index in (components.startIndex + depth)..<components.endIndex {
            let next = openat(descriptor, String(components[index]), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY)
            let error = errno
            if isOwned { close(descriptor) }
            guard next >= 0 else { throw ContainedFileReader.failure(error, file: file, opening: "a directory") }
            // A file's own directory is not kept (a page's category: there are as many as categories).
            (descriptor, isOwned) =
                index < components.endIndex - 1
                ? keep(next, as: Self.key(components[..<(index + 1)])) : (next, true)
        }
        return (descriptor, isOwned)
    }

    /// Keeps `descriptor` as `key`'s when there is room and none is kept yet: the descriptor to
    /// use, and whether the caller owns it (another thread's kept first: `descriptor` is closed).
    private func keep(_ descriptor: Int32, as key: String) -> (descriptor: Int32, isOwned: Bool) {
        let (kept, isKept) = kept.withLock { kept -> (Int32?, Bool) in
            if let earlier = kept[key] { return (earlier, false) }
            guard kept.count < Self.maxKept else { return (nil, false) }
            kept[key] = descriptor
            return (descriptor, true)
        }
        guard let kept else { return (descriptor, true) }
        if !isKept { close(descriptor) }
        return (kept, false)
    }

    private static func key(_ components: ArraySlice<Substring>) -> String {
        components.joined(separator: "/")
    }
}
