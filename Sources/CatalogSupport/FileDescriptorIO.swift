package import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whole-file reads and writes on descriptors, for the runtime's file tiers and the bundle reader:
/// one buffer of the file's known size, one `read(2)` or `write(2)` for a small file, and no `fsync`
/// unless asked (Foundation's `Data.write` calls `fsync` on Linux, which cost more than the rest of
/// a cache write).
package enum FileDescriptorIO {
    /// What `read(2)` gave back.
    package struct ReadOutcome {
        package var data: Data
        /// The `errno` of a failed read, or 0.
        package var error: Int32
    }

    /// Up to `count` bytes from `descriptor`; fewer when the file ends first.
    package static func read(_ descriptor: Int32, count: Int) -> ReadOutcome {
        var data = Data(count: count)
        var filled = 0
        var error: Int32 = 0
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                let got = systemRead(descriptor, base + filled, count - filled)
                if got > 0 {
                    filled += got
                } else if got == 0 {
                    return
                } else if errno != EINTR {
                    error = errno
                    return
                }
            }
        }
        if filled < count { data.removeSubrange(filled...) }
        return ReadOutcome(data: data, error: error)
    }

    /// Creates the file at `path`, which must not exist (`O_EXCL`; a link there is not followed),
    /// and writes `data` into it. On failure the partial file is removed.
    ///
    /// - Parameter synchronizes: Whether the data reaches the disk before the file is closed
    ///   (`fsync`; `F_FULLFSYNC` on Apple platforms, where `fsync` leaves it in the drive's cache):
    ///   for files whose loss loses what a user did. `false` by default.
    /// - Returns: 0, or the `errno` of the failed `open`, `write`, `fsync` or `close`.
    package static func createFile(
        atPath path: String, contents data: Data, permissions: mode_t = 0o644, synchronizes: Bool = false
    ) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
        guard descriptor >= 0 else { return errno }
        var error: Int32 = 0
        data.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            var written = 0
            while written < buffer.count {
                let count = systemWrite(descriptor, base + written, buffer.count - written)
                if count > 0 {
                    written += count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    error = count < 0 ? errno : EIO
                    return
                }
            }
        }
        if synchronizes && error == 0 && synchronize(descriptor) != 0 { error = errno }
        if close(descriptor) != 0 && error == 0 { error = errno }
        if error != 0 { unlink(path) }
        return error
    }

    /// Flushes `descriptor`'s data (a file's, or a directory's entries) to the disk.
    ///
    /// - Returns: 0, or -1 with `errno` set.
    package static func synchronize(_ descriptor: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return 0 }
        #endif
        return fsync(descriptor)
    }

    private static func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.read(descriptor, buffer, count)
        #elseif canImport(Glibc)
        Glibc.read(descriptor, buffer, count)
        #else
        Musl.read(descriptor, buffer, count)
        #endif
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Darwin)
        Darwin.write(descriptor, buffer, count)
        #elseif canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
        #else
        Musl.write(descriptor, buffer, count)
        #endif
    }
}
