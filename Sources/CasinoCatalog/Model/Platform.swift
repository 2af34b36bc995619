import Foundation

/// A device platform the provider publishes an edition of the catalogue for.
///
/// The raw values are the provider's spelling (`platform=iPhone`).
public enum Platform: String, Codable, Sendable, Hashable, CaseIterable, Comparable {
    case pc = "PC"
    case iPad
    case iPhone
    case android = "Android"

    /// Parses a provider spelling case-insensitively (`"iphone"`, `" Android "`).
    ///
    /// - Returns: `nil` for a value outside the closed vocabulary.
    public init?(lenient text: some StringProtocol) {
        let folded = text.trimmingWhitespace().lowercased()
        guard let match = Platform.allCases.first(where: { $0.rawValue.lowercased() == folded }) else {
            return nil
        }
        self = match
    }

    public static func < (lhs: Platform, rhs: Platform) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
