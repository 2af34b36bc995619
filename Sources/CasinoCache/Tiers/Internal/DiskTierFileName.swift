@_spi(CatalogTools) import CasinoCatalog

/// How the disk tier names its files: `<scope>_<readable>_<hash>.json.gz`.
///
/// - `scope` is `g` for ``CacheScope/global`` or `u` followed by the 16 hex digits of the
///   FNV-1a hash of the user id, so ``DiskTier/removeAll(in:)`` finds a user's files by name,
///   without opening them. The name does not show the user id; the entry inside stores the full
///   key (with the id) to detect collisions, in the app's private cache directory.
/// - `readable` is up to 40 characters of the key's content description reduced to
///   `A-Z a-z 0-9 -` (`en-iPhone-games-VIDEOSLOTS-10`), for people looking at the directory.
/// - `hash` is the 16 hex digits of the 64-bit FNV-1a hash of the UTF-8 of the key's full
///   ``CacheKey/description``.
///
/// Names are short ASCII whatever the key holds (`/`, `..`, NUL, emoji), so they never leave
/// the directory; the key's full description is stored inside the file and checked on read,
/// so a hash collision or a renamed file is a miss, never wrong content.
enum DiskTierFileName {
    /// What every entry file name ends with.
    static let suffix = ".json.gz"
    /// What every temporary file name starts with; leftovers of an interrupted write are
    /// deleted when the tier scans its directory.
    static let temporaryPrefix = ".casinocache-"
    /// What every temporary file name ends with.
    static let temporarySuffix = ".tmp"

    private static let readableLimit = 40

    /// The file name of the entry for `key`.
    static func name(for key: CacheKey) -> String {
        // The content's description is built once: the hash of the key's description is that of
        // its scope, a `/`, and the content's.
        let content = key.content.description
        let hash = fnv1a(content, continuing: fnv1a("/", continuing: fnv1a(key.scope.description)))
        return "\(scopeTag(key.scope))_\(readable(content))_\(hex(hash))\(suffix)"
    }

    /// The prefix shared by the names of every entry of `scope`.
    static func prefix(for scope: CacheScope) -> String {
        "\(scopeTag(scope))_"
    }

    /// Whether `name` is an entry file name this tier could have written.
    static func isEntry(_ name: String) -> Bool {
        guard name.hasSuffix(suffix) else { return false }
        let stem = name.utf8.dropLast(suffix.utf8.count)
        let parts = stem.split(separator: UInt8(ascii: "_"), omittingEmptySubsequences: false)
        guard parts.count == 3, let tag = parts.first, let hash = parts.last else { return false }
        let isScope = tag.elementsEqual("g".utf8) || (tag.first == UInt8(ascii: "u") && isHex(tag.dropFirst()))
        let readable = parts[1]
        return isScope && isHex(hash) && readable.count <= readableLimit
            && readable.allSatisfy { isReadable($0) }
    }

    /// Whether `name` is a temporary file this tier writes before renaming it into place.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(temporaryPrefix) && name.hasSuffix(temporarySuffix)
    }

    /// A fresh temporary file name.
    static func temporaryName(unique: String) -> String {
        "\(temporaryPrefix)\(unique)\(temporarySuffix)"
    }

    /// The 64-bit FNV-1a hash of the UTF-8 of `text` (not cryptographic: the key stored inside
    /// the file is what guards against collisions).
    static func fnv1a(_ text: String, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = hash
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func scopeTag(_ scope: CacheScope) -> String {
        switch scope {
        case .global: "g"
        case .user(let id): "u" + hex(fnv1a(id))
        }
    }

    /// `text` reduced to `A-Z a-z 0-9 -`, runs of anything else as one `-`, at most 40 bytes.
    private static func readable(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(readableLimit)
        for byte in text.utf8 {
            guard bytes.count < readableLimit else { break }
            if isReadable(byte) && byte != UInt8(ascii: "-") {
                bytes.append(byte)
            } else if bytes.last != UInt8(ascii: "-") {
                bytes.append(UInt8(ascii: "-"))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `value` as 16 lowercase hex digits.
    private static func hex(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                let nibble = UInt8(truncatingIfNeeded: value >> (60 - 4 * UInt64(index))) & 0xF
                buffer[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
            }
            return 16
        }
    }

    private static func isHex(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count == 16
            && bytes.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    private static func isReadable(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}
