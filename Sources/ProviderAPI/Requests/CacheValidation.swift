@_spi(CatalogTools) public import CasinoCatalog
import Foundation

/// The bulk validation call: one `POST /v1/casino/cache/validate` tells the app, for
/// every key it holds, whether its content is still current, with changed content inline within
/// a byte budget. The app's HTTP upstream sends it; the simulator answers it.
///
/// ```json
/// → {"pageSize": 10, "inlineBytes": 262144, "withdrawalSequence": 41,
///    "keys": {"en-iPhone/categories": "sha256:9f…", "en-iPhone/games/VIDEOSLOTS/0": "sha256:41…"}}
/// ← {"keys": {"en-iPhone/categories": {"invalidate": false, "etag": "\"…\""},
///             "en-iPhone/games/VIDEOSLOTS/0": {"invalidate": true, "contentHash": "sha256:…",
///                                              "etag": "\"…\"", "content": {…a GamesPage…}},
///             "en-iPhone/games/GONE/0": {"invalidate": true, "status": "removed"}},
///    "withdrawals": {"sequence": 42, "games": [{"id": "10017"}]}}
/// ```
///
/// `withdrawalSequence` is the sequence of the complete withdrawal list the app holds (0: none);
/// the answer carries the provider's complete list (``WithdrawalList``) when it is newer. A request
/// without the field asks for no list.
///
/// Keys are snapshot key strings (``SnapshotKey``); hashes are content hashes as in a snapshot
/// envelope (`sha256:` and the hex SHA-256 of the payload's `CatalogCoding` JSON); `content` is
/// that payload (a ``CategoryList`` or a ``GamesPage``); `etag` is what the provider's `GET` for
/// the key answers, so the next per-key refresh can be a `304`.
@_spi(CatalogTools) public enum CacheValidation {
    /// `/v1/casino/cache/validate`
    public static let path = "/v1/casino/cache/validate"
    /// The most keys one request may name: 1,000. Over it the server answers `413`.
    public static let maxKeys = 1000
    /// The largest request body: 256 KiB (1,000 keys of 250 bytes). Over it, `413`.
    public static let maxRequestBytes = 256 << 10
    /// The largest inline budget a request may ask for: 4 MiB; larger asks are lowered to it.
    public static let maxInlineBytes = 4 << 20

    /// The page size of a request that names none: 10, what a games `GET` without `pagination` gets.
    public static let defaultPageSize = 10

    /// What the app holds. Only `keys` is required: a body without `pageSize` means
    /// ``defaultPageSize``, one without `inlineBytes` means no content inline (`0`), one without
    /// `withdrawalSequence` asks for no withdrawal list.
    public struct Request: Codable, Sendable, Hashable {
        /// Snapshot key string → the content hash held.
        public var keys: [String: String]
        /// The page size the app's pages are cut with (pages of another size never match).
        public var pageSize: Int
        /// How many bytes of changed content the answer may carry inline (0: none).
        public var inlineBytes: Int
        /// The sequence of the complete withdrawal list held (0: none), or `nil` to ask for none.
        public var withdrawalSequence: Int?

        public init(
            keys: [String: String], pageSize: Int = defaultPageSize, inlineBytes: Int = 0,
            withdrawalSequence: Int? = nil
        ) {
            self.keys = keys
            self.pageSize = pageSize
            self.inlineBytes = inlineBytes
            self.withdrawalSequence = withdrawalSequence
        }

        private enum CodingKeys: String, CodingKey {
            case keys, pageSize, inlineBytes, withdrawalSequence
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            keys = try container.decode([String: String].self, forKey: .keys)
            pageSize = try container.decodeIfPresent(Int.self, forKey: .pageSize) ?? CacheValidation.defaultPageSize
            inlineBytes = try container.decodeIfPresent(Int.self, forKey: .inlineBytes) ?? 0
            withdrawalSequence = try container.decodeIfPresent(Int.self, forKey: .withdrawalSequence)
        }
    }

    /// What the server says about each key asked.
    public struct Response: Codable, Sendable, Hashable {
        public var keys: [String: Verdict]
        /// The provider's complete withdrawal list, when newer than the request's `withdrawalSequence`.
        public var withdrawals: WithdrawalList?

        public init(keys: [String: Verdict], withdrawals: WithdrawalList? = nil) {
            self.keys = keys
            self.withdrawals = withdrawals
        }
    }

    /// One key's verdict.
    public struct Verdict: Codable, Sendable, Hashable {
        /// Whether the content held is out of date (or gone).
        public var invalidate: Bool
        /// `removed` (the provider no longer has it) or `unknown` (not a key it serves); absent
        /// for a current or changed key.
        public var status: Status?
        /// The current content's hash, for a changed key.
        public var contentHash: String?
        /// The provider's validator for the key's `GET`.
        public var etag: String?
        /// The current content, when it fitted in the budget.
        public var content: Content?

        public init(
            invalidate: Bool, status: Status? = nil, contentHash: String? = nil, etag: String? = nil,
            content: Content? = nil
        ) {
            self.invalidate = invalidate
            self.status = status
            self.contentHash = contentHash
            self.etag = etag
            self.content = content
        }

        public enum Status: String, Codable, Sendable, Hashable {
            case removed, unknown
        }
    }

    /// Content carried inline: a category list or a page, told apart by the page's `categoryId`.
    public enum Content: Codable, Sendable, Hashable {
        case categories(CategoryList)
        case gamesPage(GamesPage)

        private enum Probe: String, CodingKey { case categoryId }

        public init(from decoder: any Decoder) throws {
            if try decoder.container(keyedBy: Probe.self).contains(.categoryId) {
                self = .gamesPage(try GamesPage(from: decoder))
            } else {
                self = .categories(try CategoryList(from: decoder))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .categories(let list): try list.encode(to: encoder)
            case .gamesPage(let page): try page.encode(to: encoder)
            }
        }
    }
}
