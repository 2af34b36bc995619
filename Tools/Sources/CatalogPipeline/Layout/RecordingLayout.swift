@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// Where verbatim provider responses live in a recorded provider directory (`data/provider/`).
///
/// ```
/// data/provider/recording.json                                  when and from where
/// data/provider/en-iPhone/categories.json                        GET /v1/casino/categories?language=en&platform=iPhone…
/// data/provider/en-iPhone/games/videoslots-d4a8b457ac/0.json     GET /v1/casino/games?…&pagination=offset=0,limit=10&filter=categories(id=VIDEOSLOTS)
/// data/provider/en-iPhone/games/videoslots-d4a8b457ac/10.json    the next page, named by its offset
/// ```
/// Category directories are named by ``FileNaming/component(for:)``.
public struct RecordingLayout: Sendable {
    /// The recording's root directory.
    public var root: URL

    public init(root: URL) {
        self.root = root
    }

    /// The name of the metadata file: `recording.json`.
    public static let metadataFileName = "recording.json"

    /// `recording.json`: fetch time, base URL, editions.
    public var metadataFile: URL { root.appendingPathComponent(Self.metadataFileName) }

    /// An edition's `categories.json`.
    public func categoriesFile(for edition: Edition) -> URL {
        root.appendingPathComponent(edition.id).appendingPathComponent("categories.json")
    }

    /// The directory holding a category's game pages.
    public func gamesDirectory(for edition: Edition, categoryId: String) -> URL {
        root.appendingPathComponent(edition.id).appendingPathComponent("games")
            .appendingPathComponent(FileNaming.component(for: categoryId))
    }

    /// The file of the games page at `offset`.
    public func gamesPageFile(for edition: Edition, categoryId: String, offset: Int) -> URL {
        gamesDirectory(for: edition, categoryId: categoryId).appendingPathComponent("\(offset).json")
    }

    /// The contents of `recording.json`.
    public struct Metadata: Codable, Sendable, Hashable {
        /// When the responses were fetched.
        public var fetchedAt: Date
        /// The API they were fetched from.
        public var baseURL: String?
        /// The editions recorded.
        public var editions: [Edition]
        /// The page size the game pages were requested with.
        public var pageLimit: Int?

        public init(fetchedAt: Date, baseURL: String?, editions: [Edition], pageLimit: Int?) {
            self.fetchedAt = fetchedAt
            self.baseURL = baseURL
            self.editions = editions
            self.pageLimit = pageLimit
        }
    }
}
