@_spi(CatalogTools) import CasinoCatalog
import Foundation

/// Turns provider URLs into schema URLs: absolute `https` only.
@_spi(CatalogTools) public enum URLCleaning {
    /// Returns the absolute https form of `text`, or `nil` when there is none.
    ///
    /// - Protocol-relative `//static.example.com/x.jpg` becomes `https://static.example.com/x.jpg`.
    /// - The scheme is matched case-insensitively (`HTTPS://` is fine).
    /// - Spaces inside the path are percent-encoded.
    /// - `http:` is **not** upgraded: the host may not serve https; such a URL is rejected.
    public static func https(_ text: String) -> String? {
        var url = text.trimmingWhitespace()
        let head = url.utf8.prefix(8)
        if head.starts(with: "//".utf8) {
            url = "https:" + url
        } else if head.count == 8, !head.elementsEqual("https://".utf8),
            String(decoding: head, as: UTF8.self).lowercased() == "https://"
        {
            url = "https://" + String(decoding: url.utf8.dropFirst(8), as: UTF8.self)
        }
        if url.utf8.contains(UInt8(ascii: " ")) {
            url = url.split(separator: " ", omittingEmptySubsequences: false).joined(separator: "%20")
        }
        return CatalogRules.isAbsoluteHTTPS(url) ? url : nil
    }

    /// The last path component of a link, percent-decoded
    /// (`…/v1/casino/tags/Free%20Spins` → `Free Spins`).
    public static func lastPathComponent(_ href: String) -> String? {
        let path = href.split(separator: "?", maxSplits: 1).first.map(String.init) ?? href
        guard let last = path.split(separator: "/").last else { return nil }
        let decoded = String(last).removingPercentEncoding ?? String(last)
        let cleaned = TextCleaning.line(decoded)
        return cleaned.isEmpty ? nil : cleaned
    }
}
