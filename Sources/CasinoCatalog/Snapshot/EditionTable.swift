import CatalogSupport
import Foundation

/// An edition's manifest entries as the index stores them (`index/<edition>.tsv`): tab-separated
/// lines, a header row naming the columns, one row per entry in the manifest's order, and a last
/// line giving the number of rows, so a table cut short anywhere is refused.
///
/// ```
/// path⇥key⇥count⇥total⇥compressedBytes⇥uncompressedBytes⇥sha256⇥contentHash
/// en-iPhone/categories.json.gz⇥en-iPhone/categories⇥20⇥20⇥512⇥2048⇥9f86…08⇥sha256:0f7b…
/// rows⇥1
/// ```
///
/// Every field is ASCII without tabs or line breaks by the snapshot contract (safe relative paths,
/// percent-escaped keys, decimal integers, hex digests), so rows need no quoting, and an app parses
/// them in one pass over the bytes: a launch reads its edition's entries in a fraction of what
/// `JSONDecoder` takes for the same entries. The parser is strict: a row other than eight fields,
/// a byte outside printable ASCII, an integer with a sign, a leading zero or more than 18 digits
/// (so no parse can overflow), a key that does not parse, a missing or wrong count line, or
/// anything after it is refused with its line. What the
/// values must be (sizes within the caps, well-formed digests, safe paths) is the manifest's
/// rules, checked after.
enum EditionTable {
    /// The first field of the last line, which gives the number of rows.
    static let countName = "rows"

    /// The header row.
    static let columns = [
        "path", "key", "count", "total", "compressedBytes", "uncompressedBytes", "sha256", "contentHash",
    ]

    /// Why a table does not parse: the 1-based line and what is wrong with it.
    struct Refusal: Error, Sendable, CustomStringConvertible {
        var line: Int
        var message: String
        var description: String { "line \(line): \(message)" }
    }

    /// The table of `entries`.
    ///
    /// - Throws: ``Refusal`` for a field holding a tab, a line break or a byte outside printable
    ///   ASCII (an entry that breaks the contract).
    static func encode(_ entries: [Manifest.Entry]) throws(Refusal) -> Data {
        var text = columns.joined(separator: "\t") + "\n"
        for (position, entry) in entries.enumerated() {
            let fields = [
                entry.path, entry.key.description, String(entry.count), String(entry.total),
                String(entry.compressedBytes), String(entry.uncompressedBytes), entry.sha256, entry.contentHash,
            ]
            guard fields.allSatisfy({ $0.utf8.allSatisfy(isFieldByte) }) else {
                throw Refusal(line: position + 2, message: "a field holds a byte a table cannot")
            }
            text += fields.joined(separator: "\t") + "\n"
        }
        text += "\(countName)\t\(entries.count)\n"
        return Data(text.utf8)
    }

    /// The entries of a table.
    ///
    /// - Throws: ``Refusal`` naming the first line that is not a row of the table.
    static func parse(_ data: Data) throws(Refusal) -> [Manifest.Entry] {
        let result = data.withUnsafeBytes { raw -> Result<[Manifest.Entry], Refusal> in
            Result { () throws(Refusal) in try parse(raw.bindMemory(to: UInt8.self)) }
        }
        return try result.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(Refusal) -> [Manifest.Entry] {
        var entries: [Manifest.Entry] = []
        var line = 0
        var start = 0
        while start < bytes.count {
            line += 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else {
                throw Refusal(line: line, message: "does not end with a line break (truncated?)")
            }
            let row = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            var fields: [UnsafeBufferPointer<UInt8>] = []
            fields.reserveCapacity(columns.count)
            var fieldStart = 0
            for index in 0...row.count {
                if index == row.count || row[index] == UInt8(ascii: "\t") {
                    fields.append(UnsafeBufferPointer(rebasing: row[fieldStart..<index]))
                    fieldStart = index + 1
                } else if !isFieldByte(row[index]) {
                    throw Refusal(
                        line: line, message: "byte \(row[index]) at column \(index + 1) is not printable ASCII")
                }
            }
            if line > 1, fields.count == 2, fields[0].elementsEqual(countName.utf8) {
                let count = try integer(fields[1], countName, line)
                guard count == entries.count else {
                    throw Refusal(line: line, message: "says \(count) rows; the table has \(entries.count)")
                }
                guard start == bytes.count else {
                    throw Refusal(line: line + 1, message: "follows the count line, which must be the last")
                }
                return entries
            }
            guard fields.count == columns.count else {
                throw Refusal(line: line, message: "has \(fields.count) fields, not \(columns.count)")
            }
            if line == 1 {
                guard zip(fields, columns).allSatisfy({ $0.elementsEqual($1.utf8) }) else {
                    throw Refusal(line: line, message: "is not the header row \(columns.joined(separator: " "))")
                }
                continue
            }
            guard let key = SnapshotKey(text(fields[1])) else {
                throw Refusal(line: line, message: "key '\(text(fields[1]).prefix(200))' is not a snapshot key")
            }
            entries.append(
                Manifest.Entry(
                    path: text(fields[0]), key: key, count: try integer(fields[2], "count", line),
                    total: try integer(fields[3], "total", line),
                    compressedBytes: try integer(fields[4], "compressedBytes", line),
                    uncompressedBytes: try integer(fields[5], "uncompressedBytes", line), sha256: text(fields[6]),
                    contentHash: text(fields[7])))
        }
        guard line > 0 else { throw Refusal(line: 1, message: "is empty: the header row is missing") }
        throw Refusal(line: line + 1, message: "the count line is missing: the table was cut short")
    }

    /// Printable ASCII but the tab: what a field may hold.
    private static func isFieldByte(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte)
    }

    private static func text(_ field: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: field, as: UTF8.self)
    }

    /// A decimal of 1 to 18 digits without sign or leading zero.
    private static func integer(
        _ field: UnsafeBufferPointer<UInt8>, _ name: String, _ line: Int
    ) throws(Refusal) -> Int {
        guard let value = CanonicalDecimal.value(of: field, maxDigits: 18) else {
            throw Refusal(line: line, message: "\(name) '\(text(field).prefix(40))' is not a decimal of 1 to 18 digits")
        }
        return value
    }
}
