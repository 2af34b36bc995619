@_spi(CatalogTools) public import CasinoCatalog

/// Who a cached value belongs to: everyone, or one signed-in user.
///
/// Catalogue content is ``global``; personalized content is cached per user and removed on logout
/// with ``CatalogCache/clear(scope:)``.
public enum CacheScope: Sendable, Hashable, CustomStringConvertible {
    /// Shared by every user; survives logout.
    case global
    /// One user's content, identified by an app-chosen id.
    case user(String)

    public var description: String {
        switch self {
        case .global: "global"
        case .user(let id): "user:\(SnapshotKey.escape(id))"
        }
    }
}

/// The identity of a cached value: a scope and a piece of catalogue content.
///
/// Its ``description`` is unambiguous (`global/en-iPhone/games/VIDEOSLOTS/10`) and is what the disk
/// tier stores inside each file to detect collisions.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
    public var scope: CacheScope
    public var content: SnapshotKey

    public init(_ content: SnapshotKey, scope: CacheScope = .global) {
        self.scope = scope
        self.content = content
    }

    /// An edition's category list.
    public static func categories(_ edition: Edition, scope: CacheScope = .global) -> CacheKey {
        CacheKey(.categories(edition), scope: scope)
    }

    /// One page of a category.
    public static func gamesPage(
        _ edition: Edition, categoryId: String, offset: Int, scope: CacheScope = .global
    ) -> CacheKey {
        CacheKey(.gamesPage(edition, categoryId: categoryId, offset: offset), scope: scope)
    }

    public var description: String { "\(scope)/\(content)" }

    /// Compares every field, the cheapest first (the offset, then the category id), without
    /// copying the enums' payloads as the synthesized `==` does. (The memory tier compares a stored
    /// key's parts, `MemoryTierKey`, not this.)
    public static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        switch lhs.content {
        case .categories(let edition):
            guard case .categories(let other) = rhs.content, edition == other else { return false }
        case .gamesPage(let edition, let categoryId, let offset):
            guard case .gamesPage(let otherEdition, let otherCategoryId, let otherOffset) = rhs.content,
                offset == otherOffset, categoryId == otherCategoryId, edition == otherEdition
            else { return false }
        }
        switch lhs.scope {
        case .global:
            if case .global = rhs.scope { return true }
            return false
        case .user(let id):
            if case .user(let other) = rhs.scope { return id == other }
            return false
        }
    }

    /// Hashes what tells keys apart in practice (the category and offset of a page, the language
    /// of a category list, a user's id) and leaves the rest to `==`, which compares every field:
    /// the fields the memory tier hashes too, with its own hash function.
    public func hash(into hasher: inout Hasher) {
        switch content {
        case .categories(let edition):
            hasher.combine(edition.language)
        case .gamesPage(_, let categoryId, let offset):
            hasher.combine(categoryId)
            hasher.combine(offset)
        }
        if case .user(let id) = scope { hasher.combine(id) }
    }
}

extension Sequence {
    /// The elements in the order of their keys' ``CacheKey/description``, each description built
    /// once (a comparator that builds two per comparison dominated sorting thousands of keys).
    func sorted(byDescriptionOf key: (Element) -> CacheKey) -> [Element] {
        map { (key($0).description, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

extension CacheKey {
    /// The key whose ``description`` is exactly `stored` (as a disk entry's header holds it), or
    /// `nil`: another spelling of a key (an escape where none is needed) is refused, not read as it.
    @_spi(CatalogTools) public init?(stored: String) {
        guard let slash = stored.firstIndex(of: "/"),
            let content = SnapshotKey(String(stored[stored.index(after: slash)...]))
        else { return nil }
        let scope = stored[..<slash]
        if scope == "global" {
            self.init(content)
        } else if scope.hasPrefix("user:"), let id = SnapshotKey.unescape(scope.dropFirst(5).utf8), !id.isEmpty {
            self.init(content, scope: .user(id))
        } else {
            return nil
        }
        guard description == stored else { return nil }
    }
}
