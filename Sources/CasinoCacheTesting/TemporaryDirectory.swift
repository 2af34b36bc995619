public import Foundation

/// A fresh directory under the system's temporary directory, removed when the value is released:
/// for tests that give a disk tier, a bundle or a pipeline real files.
///
/// ```swift
/// let directory = try TemporaryDirectory()
/// let disk = DiskTier(configuration: .init(directory: directory.child("cache")), logger: logger)
/// ```
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory (`casinocache-<UUID>` in the temporary directory).
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("casinocache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The URL of `name` inside the directory (nothing is created).
    public func child(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes `data` to `name` inside the directory and returns its URL.
    @discardableResult
    public func write(_ data: Data, to name: String) throws -> URL {
        let file = child(name)
        try data.write(to: file)
        return file
    }

    /// Writes `text` as UTF-8 to `name` inside the directory and returns its URL.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> URL {
        try write(Data(text.utf8), to: name)
    }
}
