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
/// no read can find its number reused. A reader that keeps none walks through one made for that read.
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
    /// - Throws: `SnapshotReadError` naming `file` when a directory on the way is missing, a
    ///   symbolic link or not a directory.
    func descriptor(
        of components: ArraySlice<Substring>, for file: String
    ) throws(SnapshotReadError) -> (
        descriptor: Int32, isOwned: Bool
    ) {
        // From the deepest directory kept, or the snapshot directory itself (kept when there is room).
        // A file's own directory is never kept, so the search starts above it.
        var depth = max(components.count - 1, 0)
        var descriptor: Int32
        var isOwned = false
        while true {
            if let found = kept.withLock({ $0[Self.key(components.prefix(depth))] }) {
                descriptor = found
                break
            }
            if depth == 0 {
                (descriptor, isOwned) = keep(try ContainedFileReader.openDirectory(directory, for: file), as: "")
                break
            }
            depth -= 1
        }
        for index in (components.startIndex + depth)..<components.endIndex {
            let next = openat(descriptor, String(components[index]), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_DIRECTORY)
            let error = errno
            if isOwned { close(descriptor) }
            guard next >= 0 else { throw ContainedFileReader.failure(error, file: file, opening: "the file") }
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
