@_spi(CatalogTools) import CasinoCatalog
import CatalogSupport
public import Foundation
public import Logging

/// What the library asks of the file system for a directory it writes into: a Data Protection class
/// (files created inside inherit it) and whether device backups skip it.
///
/// Decided here, in portable code a Linux test checks; applied only on Apple platforms, where the
/// attributes exist (``apply(to:logger:)``). SPI `Tiers`, for those tests.
@_spi(CatalogTools) public struct StorageAttributes: Sendable, Hashable {
    /// What a directory holds, which decides its backup.
    public enum Role: Sendable {
        /// The disk tier's entries: in Caches, which no backup holds.
        case cacheEntries
        /// A player's unsent changes: the user's data, backed up where the app put it.
        case playerChanges
        /// Over-the-air generations: in Application Support, yet downloadable again, so Apple's
        /// storage guidelines want them out of iCloud backups.
        case snapshotGenerations
    }

    public var protection: CacheFileProtection
    public var isExcludedFromBackup: Bool

    public init(role: Role, protection: CacheFileProtection) {
        self.protection = protection
        isExcludedFromBackup = role == .snapshotGenerations
    }

    /// The attributes `FileManager.setAttributes(_:ofItemAtPath:)` gets.
    public var fileAttributes: [FileAttributeKey: FileProtectionType] {
        [.protectionKey: protection.fileProtectionType]
    }

    /// The resource values `URL.setResourceValues(_:)` gets.
    public var resourceValues: URLResourceValues {
        var values = URLResourceValues()
        values.isExcludedFromBackup = isExcludedFromBackup
        return values
    }

    /// Creates `directory` when missing and gives it these attributes. Off Apple platforms it only
    /// logs, at `.debug`, that they do not apply; callers apply once per directory, so once.
    /// A failure is logged at `.info`: the files still work, without the class asked for.
    public func apply(to directory: URL, logger: Logger) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            logger.info(
                "cannot create a directory to protect",
                metadata: ["cache.directory": "\(directory.path)", "cache.error": "\(error)"])
            return
        }
        #if canImport(Darwin)
        do {
            try FileManager.default.setAttributes(fileAttributes, ofItemAtPath: directory.path)
            var url = directory
            try url.setResourceValues(resourceValues)
        } catch {
            logger.info(
                "cannot set file protection or backup exclusion",
                metadata: ["cache.directory": "\(directory.path)", "cache.error": "\(error)"])
        }
        #else
        logger.debug(
            "file protection and backup exclusion apply on Apple platforms only; ignored here",
            metadata: ["cache.directory": "\(directory.path)", "cache.fileProtection": "\(protection.rawValue)"])
        #endif
    }
}

/// A directory's ``StorageAttributes``, applied at its first write in this process: what the disk
/// tier and the player queue hold for the directory they write into.
final class StoragePreparation: Sendable {
    private let attributes: StorageAttributes
    private let directory: URL
    private let logger: Logger
    private let isPrepared = Locked(false)

    init(_ role: StorageAttributes.Role, protection: CacheFileProtection, directory: URL, logger: Logger) {
        attributes = StorageAttributes(role: role, protection: protection)
        self.directory = directory
        self.logger = logger
    }

    /// Creates the directory with its attributes, the first time only.
    func prepareOnce() {
        guard
            isPrepared.withLock({ isPrepared in
                defer { isPrepared = true }
                return !isPrepared
            })
        else { return }
        attributes.apply(to: directory, logger: logger)
    }
}
