import CatalogSupport
import Dispatch
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A few small files that must not be lost (a player's unsent changes, the territory, the
/// withdrawals), unlike a cache entry: a crash or a power cut leaves each as the old version or the
/// new one, never neither and never half of one.
///
/// Saves return at once; the writes follow on one serial queue, each a temporary file
/// (`<temporaryPrefix><name>-<UUID>.tmp`) written and `fsync`ed, renamed over the old file, then
/// the directory `fsync`ed so the rename survives a power cut. Saves of one name coalesce: of
/// several before the writer gets to it only the last is encoded and written, and until it lands
/// ``load(_:limit:)`` answers it. Before its first write the store deletes the temporary files of
/// its names a kill left behind: one store per directory and names, as two would sweep each
/// other's writes in flight.
///
/// A read trusts nothing on disk: it opens without following a link, refuses what is not a regular
/// file or is over its limit, and never blocks on a FIFO.
///
/// ```swift
/// let store = DurableStore(
///     directory: directory, label: "Territory", temporaryPrefix: ".territory-", keeps: { $0 == "Territory" },
///     failed: { name, failure in logger.warning("\(name): \(failure)") })
/// store.save(Data("GB\n".utf8), as: "Territory")   // returns at once
/// let saved = try store.load("Territory", limit: 64)
/// ```
final class DurableStore: Sendable {
    /// Why a read or a write failed.
    struct Failure: Error, Sendable, CustomStringConvertible {
        var description: String

        init(_ description: String) {
            self.description = description
        }

        init(_ operation: String, code: Int32) {
            description = "\(operation): \(String(cString: strerror(code)))"
        }
    }

    /// The directory the files live in; created at the first write.
    let directory: URL
    private let temporaryPrefix: String
    private let keeps: @Sendable (String) -> Bool
    private let preparation: StoragePreparation?
    private let failed: @Sendable (_ name: String, _ failure: Failure) -> Void
    private let queue: DispatchQueue
    private let state = Locked(State())

    /// What a name becomes when its turn comes.
    private enum Change {
        case bytes(@Sendable () throws -> Data)
        case removal
        /// A removal whose failure is not reported: of a file found unusable.
        case discard
    }

    private struct State {
        var sequence: UInt64 = 0
        /// Changes not yet on disk: name → (sequence, change).
        var pending: [String: (sequence: UInt64, change: Change)] = [:]
        var hasRemovedLeftovers = false
    }

    /// - Parameters:
    ///   - directory: Where the files live.
    ///   - label: The writer queue's label.
    ///   - qos: The writer queue's quality of service.
    ///   - temporaryPrefix: What this store's temporary file names start with.
    ///   - preparation: The directory's attributes, applied before the first write.
    ///   - keeps: Whether a file name is one this store writes: ``removeAll()`` deletes those, and
    ///     the leftover temporaries of those (of `""`: a temporary named `<prefix><UUID>.tmp`).
    ///   - failed: Told, on the writer queue, of each write or removal that failed.
    init(
        directory: URL, label: String, qos: DispatchQoS = .utility, temporaryPrefix: String,
        preparation: StoragePreparation? = nil, keeps: @escaping @Sendable (String) -> Bool,
        failed: @escaping @Sendable (_ name: String, _ failure: Failure) -> Void
    ) {
        self.directory = directory
        self.temporaryPrefix = temporaryPrefix
        self.keeps = keeps
        self.preparation = preparation
        self.failed = failed
        queue = DispatchQueue(label: label, qos: qos)
    }

    // MARK: - Changes

    /// Makes `data` the file `name`; returns at once, the write follows.
    func save(_ data: Data, as name: String) {
        save(as: name) { data }
    }

    /// Makes what `bytes` returns the file `name`; returns at once. `bytes` runs later, off the
    /// caller's thread, and not at all when a later save of `name` comes first.
    func save(as name: String, bytes: @escaping @Sendable () throws -> Data) {
        change(name, to: .bytes(bytes))
    }

    /// Deletes the file `name`; returns at once, the removal follows.
    func remove(_ name: String) {
        change(name, to: .removal)
    }

    /// Deletes the file `name`, a file found unusable, unless a change of it is on its way; a later
    /// change supersedes it. A failure is not reported.
    func discard(_ name: String) {
        change(name, to: .discard, unlessPending: true)
    }

    /// Deletes every file this store keeps, and their temporaries; forgets the changes not written.
    func removeAll() {
        state.withLock { $0.pending.removeAll() }
        queue.async { [self] in
            for name in fileNames() where keeps(name) || isLeftover(name) { unlink(path(name)) }
        }
    }

    private func change(_ name: String, to change: Change, unlessPending: Bool = false) {
        let sequence = state.withLock { state -> UInt64? in
            if unlessPending && state.pending[name] != nil { return nil }
            state.sequence += 1
            state.pending[name] = (state.sequence, change)
            return state.sequence
        }
        guard let sequence else { return }
        queue.async { [self] in write(name, sequence: sequence) }
    }

    // MARK: - Reads and waits

    /// The bytes of `name`: the change not yet written, else the file's; `nil` when there is none.
    ///
    /// - Throws: ``Failure`` when the file is a link, a directory or anything but a regular file,
    ///   is over `limit` bytes, or cannot be read; or when the pending bytes cannot be made.
    func load(_ name: String, limit: Int) throws(Failure) -> Data? {
        if let pending = state.withLock({ $0.pending[name]?.change }) {
            guard case .bytes(let bytes) = pending else { return nil }  // on its way out
            do { return try bytes() } catch { throw Failure("cannot encode \(name): \(error)") }
        }
        return try Self.read(path(name), name: name, limit: limit)
    }

    /// Waits until the changes asked so far are on disk (or have failed).
    func flush() async {
        await queue.result {}
    }

    /// ``flush()``, waiting at most `limit` (on the alarm thread: a hung write holds the queue, not
    /// the caller); `false` when the limit came first.
    func flush(within limit: Duration) async -> Bool {
        await queue.drained(within: limit)
    }

    /// Holds the writer queue as a file system that hangs holds it, until the returned release is
    /// called. For tests of the waits.
    func holdQueue() -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        return { gate.signal() }
    }

    // MARK: - Writer queue

    private func write(_ name: String, sequence: UInt64) {
        guard
            let change = state.withLock({ state in
                state.pending[name].flatMap { $0.sequence == sequence ? $0.change : nil }
            })
        else { return }  // a later change of `name` superseded this one
        removeLeftoversOnce()
        do throws(Failure) {
            switch change {
            case .discard:
                unlink(path(name))
            case .removal:
                guard unlink(path(name)) == 0 || errno == ENOENT else { throw Failure("remove \(name)", code: errno) }
            case .bytes(let bytes):
                let data: Data
                do { data = try bytes() } catch { throw Failure("cannot encode \(name): \(error)") }
                preparation?.prepareOnce()
                do {
                    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                } catch {
                    throw Failure("cannot create \(directory.path): \(error)")
                }
                try Self.write(data, to: path(name), temporary: path(temporaryName(for: name)), name: name)
                synchronizeDirectory()
            }
        } catch {
            failed(name, error)
        }
        state.withLock { state in
            if state.pending[name]?.sequence == sequence { state.pending[name] = nil }
        }
    }

    /// Deletes, once, the temporary files of this store's names a kill left behind.
    private func removeLeftoversOnce() {
        guard
            state.withLock({ state in
                defer { state.hasRemovedLeftovers = true }
                return !state.hasRemovedLeftovers
            })
        else { return }
        for name in fileNames() where isLeftover(name) { unlink(path(name)) }
    }

    /// Whether `file` is `<temporaryPrefix>[<name>-]<UUID>.tmp` for a `name` this store keeps.
    func isLeftover(_ file: String) -> Bool {
        let suffix = ".tmp"
        guard file.hasPrefix(temporaryPrefix), file.hasSuffix(suffix) else { return false }
        let middle = file.utf8.dropFirst(temporaryPrefix.utf8.count).dropLast(suffix.utf8.count)
        let uuidLength = 36
        guard middle.count >= uuidLength,
            let unique = String(middle.suffix(uuidLength)), UUID(uuidString: unique) != nil
        else { return false }
        let stem = middle.dropLast(uuidLength)
        guard let last = stem.last else { return keeps("") }
        return last == UInt8(ascii: "-") && String(stem.dropLast()).map(keeps) == true
    }

    private func temporaryName(for name: String) -> String {
        "\(temporaryPrefix)\(name)-\(UUID().uuidString).tmp"
    }

    private func path(_ name: String) -> String {
        directory.appendingPathComponent(name, isDirectory: false).path
    }

    private func fileNames() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }

    private func synchronizeDirectory() {
        let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else { return }
        _ = FileDescriptorIO.synchronize(descriptor)
        close(descriptor)
    }

    // MARK: - Files

    /// Writes `data` to `temporary` with `fsync` (`F_FULLFSYNC` on Apple platforms), then renames it
    /// to `path`; on failure the temporary file is removed.
    private static func write(_ data: Data, to path: String, temporary: String, name: String) throws(Failure) {
        let error = FileDescriptorIO.createFile(
            atPath: temporary, contents: data, permissions: 0o600, synchronizes: true)
        guard error == 0 else { throw Failure("write a temporary file for \(name)", code: error) }
        guard rename(temporary, path) == 0 else {
            let failure = Failure("rename to \(name)", code: errno)
            unlink(temporary)
            throw failure
        }
    }

    /// The bytes of the regular file at `path`, or `nil` when nothing is there: one
    /// `open(O_NOFOLLOW | O_NONBLOCK)`, one `fstat`, one read of at most `limit` bytes.
    private static func read(_ path: String, name: String, limit: Int) throws(Failure) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT { return nil }
            throw Failure("cannot open \(name)", code: error)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure("cannot stat \(name)", code: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Failure("\(name) is not a regular file") }
        // The size is the file system's word, and anyone may write the file while it is read: a
        // byte past the size is asked for, and a file that has one is refused (this store's files
        // change by rename, never in place).
        guard info.st_size >= 0, info.st_size <= limit else {
            throw Failure("\(name) is \(info.st_size) bytes, over \(limit)")
        }
        let size = Int(info.st_size)
        let outcome = FileDescriptorIO.read(descriptor, count: size + 1)
        guard outcome.error == 0 else { throw Failure("cannot read \(name)", code: outcome.error) }
        guard outcome.data.count <= size else { throw Failure("\(name) grew while it was read") }
        return outcome.data
    }
}
