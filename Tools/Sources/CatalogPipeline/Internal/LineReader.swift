import Foundation

/// Reads a file a line at a time (lines end with `\n`; a last line without one counts), holding
/// one chunk and one line in memory, and refusing a line longer than a cap before it is whole.
final class LineReader {
    /// A line went over the cap; `number` counts from 1.
    struct TooLong: Error {
        var number: Int
    }

    private let handle: FileHandle
    private let maxLineBytes: Int
    private var buffer = Data()
    private var start = 0  // where the next line begins in `buffer`
    private var atEnd = false
    private var number = 0

    init(url: URL, maxLineBytes: Int) throws {
        handle = try FileHandle(forReadingFrom: url)
        self.maxLineBytes = maxLineBytes
    }

    deinit {
        try? handle.close()
    }

    /// The index of the first `\n` at or after `start`.
    private func newlineIndex() -> Int? {
        buffer.withUnsafeBytes { bytes -> Int? in
            guard start < bytes.count, let base = bytes.baseAddress else { return nil }
            guard let found = memchr(base + start, Int32(UInt8(ascii: "\n")), bytes.count - start) else { return nil }
            return base.distance(to: UnsafeRawPointer(found))
        }
    }

    /// The next line without its `\n`, and its number; `nil` at the end of the file.
    func next() throws -> (number: Int, bytes: Data)? {
        while true {
            if let newline = newlineIndex() {
                number += 1
                guard newline - start <= maxLineBytes else { throw TooLong(number: number) }
                let line = buffer[start..<newline]
                start = newline + 1
                return (number, Data(line))
            }
            guard buffer.count - start <= maxLineBytes else { throw TooLong(number: number + 1) }
            if atEnd {
                guard start < buffer.count else { return nil }
                number += 1
                let line = buffer[start...]
                start = buffer.count
                return (number, Data(line))
            }
            // Keep the unread tail, then read the next chunk after it.
            buffer = buffer[start...].isEmpty ? Data() : Data(buffer[start...])
            start = 0
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { atEnd = true } else { buffer.append(chunk) }
        }
    }
}
