import Foundation

/// Bytes appended back to back in one growing allocation, whose base stays put between appends
/// made while no one reads (a parse of one chunk).
struct ByteArena {
    private(set) var base: UnsafeMutableRawPointer?
    private var capacity = 0
    /// The bytes appended since the last ``removeAll()``.
    private(set) var count = 0

    mutating func append(_ source: UnsafeRawBufferPointer) -> Range<Int> {
        let start = count
        let end = reserve(source.count)
        if let sourceBase = source.baseAddress {
            end.copyMemory(from: sourceBase, byteCount: source.count)
        }
        count += source.count
        return start..<count
    }

    /// Room for `extra` more bytes after ``count``, growing by doubling; the caller writes them
    /// and adds what it wrote with ``grow(by:)``.
    mutating func reserve(_ extra: Int) -> UnsafeMutableRawPointer {
        if count + extra > capacity || base == nil {
            let grown = max(capacity * 2, count + extra, 4096)
            let new = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
            if let base {
                new.copyMemory(from: base, byteCount: count)
                base.deallocate()
            }
            base = new
            capacity = grown
        }
        // `base` was just set when it was nil.
        return base.unsafelyUnwrapped + count
    }

    /// Counts `written` bytes put after ``count`` through ``reserve(_:)``.
    mutating func grow(by written: Int) { count += written }

    /// Drops the first `prefix` bytes, moving the rest to the start.
    mutating func removeFirst(_ prefix: Int) {
        guard let base, prefix > 0 else { return }
        count -= prefix
        memmove(base, base + prefix, count)
    }

    mutating func removeAll() { count = 0 }

    func deallocate() { base?.deallocate() }

    /// The bytes of `range`.
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        guard let base else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(
            start: (base + range.lowerBound).assumingMemoryBound(to: UInt8.self), count: range.count)
    }
}
