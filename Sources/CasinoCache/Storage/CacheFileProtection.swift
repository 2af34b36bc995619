public import Foundation

/// The Data Protection class of the files the cache and the updater write on an Apple device: when
/// the system lets the app read them. Ignored off Apple platforms (logged once at `.debug`).
///
/// The class is set on the directories they write into; files created there inherit it.
///
/// ```swift
/// var configuration = CatalogCache.Configuration.default
/// configuration.fileProtection = .complete  // nothing cached readable while the device is locked
/// ```
public enum CacheFileProtection: String, Sendable, Hashable, CaseIterable {
    /// Readable only while the device is unlocked: a background refresh on a locked device reads
    /// nothing (every read is a miss; the bundle answers) and cannot write.
    case complete
    /// Files open when the device locks stay readable; new files can be written while locked.
    case completeUnlessOpen
    /// Readable from the first unlock after a boot until the next shutdown: a background refresh
    /// after a reboot still works once the user has unlocked once. The default.
    case completeUntilFirstUserAuthentication
    /// No protection beyond the device's own encryption.
    case none

    /// The default: ``completeUntilFirstUserAuthentication``.
    public static let `default` = CacheFileProtection.completeUntilFirstUserAuthentication

    /// Foundation's value for this class (`FileAttributeKey.protectionKey`).
    public var fileProtectionType: FileProtectionType {
        switch self {
        case .complete: .complete
        case .completeUnlessOpen: .completeUnlessOpen
        case .completeUntilFirstUserAuthentication: .completeUntilFirstUserAuthentication
        case .none: .none
        }
    }
}
