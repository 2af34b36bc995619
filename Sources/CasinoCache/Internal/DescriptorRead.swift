import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading a whole file from an open descriptor into one buffer of its known size: one allocation
/// and, for a small file, one `read(2)`. Both file tiers read this way after their own `fstat`
/// checks (`FileHandle.read(upToCount:)` allocated a buffer of the cap, not of the file).
enum DescriptorRead {
    /// What `read(2)` gave back.
    struct Outcome {
        var data: Data
        /// The `errno` of a failed read, or 0.
        var error: Int32
    }

    /// Up to `count` bytes from `descriptor`; fewer when the file ends first.
    static func read(_ descriptor: Int32, count: Int) -> Outcome {
        var data = Data(count: count)
        var filled = 0
        var error: Int32 = 0
        data.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress else { return }
            while filled < count {
                #if canImport(Darwin)
                let got = Darwin.read(descriptor, base + filled, count - filled)
                #elseif canImport(Glibc)
                let got = Glibc.read(descriptor, base + filled, count - filled)
                #else
                let got = Musl.read(descriptor, base + filled, count - filled)
                #endif
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
        return Outcome(data: data, error: error)
    }
}
