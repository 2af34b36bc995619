import CatalogSupport
import Dispatch
import Foundation
import Logging

/// Where the player's territory survives a relaunch, so the next launch's first frame is already
/// filtered for it: one small file (the code and a newline), written as a `DurableFile` off the
/// caller's thread. A file that is missing, too long, not a territory code, a link or a directory
/// reads as no territory (``UnknownTerritoryPolicy`` then decides), never as a wider one.
final class TerritoryStore: Sendable {
    /// The file's name in its directory.
    static let fileName = "Territory"
    private static let maxBytes = 64

    private let directory: URL
    private let logger: Logger
    private let queue = DispatchQueue(label: "CasinoCache.TerritoryStore", qos: .utility)

    init(directory: URL, logger: Logger) {
        self.directory = directory
        self.logger = logger
    }

    /// The territory the last launch saved, or `nil`.
    func load() -> Territory? {
        let contents: DiskTierFiles.Contents?
        do {
            contents = try DiskTierFiles(directory: directory).read(Self.fileName, limit: Self.maxBytes)
        } catch {
            logger.info("the saved territory is unreadable; none is assumed", metadata: ["cache.error": "\(error)"])
            return nil
        }
        guard let contents else { return nil }
        let text = String(decoding: contents.data, as: UTF8.self)
        guard text.hasSuffix("\n"), let territory = Territory(String(text.dropLast())) else {
            logger.info("the saved territory is not a territory code; none is assumed")
            return nil
        }
        return territory
    }

    /// Saves `territory` (`nil`: removes the file); returns at once.
    func save(_ territory: Territory?) {
        queue.async { [directory, logger] in
            do {
                guard let territory else {
                    if unlink(directory.appendingPathComponent(Self.fileName).path) != 0, errno != ENOENT {
                        throw DurableFile.Failure(operation: "remove \(Self.fileName)", code: errno)
                    }
                    return
                }
                try DurableFile.write(Data("\(territory.code)\n".utf8), to: Self.fileName, creating: directory)
            } catch {
                logger.warning(
                    "the territory could not be saved; the next launch starts without it",
                    metadata: ["cache.error": "\(error)"])
            }
        }
    }

    /// Waits until the saves asked so far are done.
    func flush() async {
        await queue.result {}
    }
}
