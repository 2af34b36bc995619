import Crypto
public import Foundation

/// Derives file and directory names from provider ids, which are hostile input.
///
/// A name is a readable, lowercased prefix of the id followed by the first 10 hex digits of the
/// id's SHA-256: `VIDEOSLOTS` → `videoslots-d4a8b457ac`, `../../etc/passwd` →
/// `etc_passwd-3754d6cb3a`. No id can leave its directory (`/`, `\`, `..`, NUL never survive),
/// and ids that differ only in case or punctuation still get different names, also on
/// case-insensitive file systems.
public enum FileNaming {
    /// The longest readable prefix kept: 40 characters.
    public static let maxPrefixLength = 40

    /// The file-system-safe name for `id`.
    public static func component(for id: String) -> String {
        var prefix = ""
        var pendingSeparator = false
        for byte in id.utf8 {
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            if (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(lower)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(lower)
            {
                if pendingSeparator && !prefix.isEmpty { prefix.append("_") }
                pendingSeparator = false
                prefix.unicodeScalars.append(Unicode.Scalar(lower))
            } else {
                pendingSeparator = true
            }
        }
        if prefix.count > maxPrefixLength {
            prefix = String(prefix.prefix(maxPrefixLength))
            while prefix.hasSuffix("_") { prefix.removeLast() }
        }
        if prefix.isEmpty { prefix = "id" }
        return prefix + "-" + String(hexSHA256(Data(id.utf8)).prefix(10))
    }

    /// The lowercase hex SHA-256 of `data`.
    public static func hexSHA256(_ data: Data) -> String {
        SHA256.hash(data: data).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }
}
