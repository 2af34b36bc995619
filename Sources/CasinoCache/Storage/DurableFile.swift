import CatalogSupport
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A small file a crash or a power cut leaves as the old version or the new one, never neither
/// and never half of one: what must not be lost (a player's unsent changes, the player's
/// territory), unlike a cache entry.
enum DurableFile {
    /// A write that failed, and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var code: Int32
        var description: String { "\(operation): \(String(cString: strerror(code)))" }
    }

    /// Writes `data` as `name` in `directory` (which must exist): the temporary file
    /// `temporaryName` beside it, `fsync` (`F_FULLFSYNC` on Apple platforms), `rename(2)` over the
    /// old file, then `fsync` of the directory, so that the rename itself survives a power cut.
    static func write(_ data: Data, to name: String, in directory: URL, temporaryName: String) throws(Failure) {
        let temporary = directory.appendingPathComponent(temporaryName, isDirectory: false).path
        let error = FileDescriptorIO.createFile(
            atPath: temporary, contents: data, permissions: 0o600, synchronizes: true)
        guard error == 0 else { throw Failure(operation: "write a temporary file for \(name)", code: error) }
        guard rename(temporary, directory.appendingPathComponent(name, isDirectory: false).path) == 0 else {
            let failure = Failure(operation: "rename to \(name)", code: errno)
            unlink(temporary)
            throw failure
        }
        let directoryDescriptor = open(directory.path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        if directoryDescriptor >= 0 {
            _ = FileDescriptorIO.synchronize(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// ``write(_:to:in:temporaryName:)`` into `directory`, created when missing, beside a temporary
    /// file named as the disk tier names its own (`.casinocache-<name>-<UUID>.tmp`), so the tier's
    /// scan removes one a kill left behind: what the cache's small saved files (the territory, the
    /// withdrawals) use.
    static func write(_ data: Data, to name: String, creating directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write(
            data, to: name, in: directory,
            temporaryName: DiskTierFiles.temporaryName(unique: "\(name)-\(UUID().uuidString)"))
    }
}
