@_spi(CatalogTools) import CasinoCatalog

/// A stored key's parts as plain fields, kept beside each entry of the memory tier: a lookup
/// compares them where they lie. Matching the stored ``CacheKey`` itself would copy it, retains
/// and all, to bind its enums' payloads; a field of a struct is compared in place.
struct MemoryTierKey {
    /// A page, else a category list.
    let isGamesPage: Bool
    let language: String
    let platform: Platform
    /// A page's category; empty for a category list.
    let categoryId: String
    /// A page's offset; 0 for a category list.
    let offset: Int
    /// The user of a `.user` scope; `nil` for global content.
    let user: String?

    init(_ key: CacheKey) {
        switch key.content {
        case .categories(let edition):
            (isGamesPage, language, platform, categoryId, offset) = (false, edition.language, edition.platform, "", 0)
        case .gamesPage(let edition, let categoryId, let offset):
            (isGamesPage, language, platform) = (true, edition.language, edition.platform)
            (self.categoryId, self.offset) = (categoryId, offset)
        }
        if case .user(let id) = key.scope { user = id } else { user = nil }
    }
}

/// The comparisons a lookup makes, field by field through the pointer: a method on the key itself
/// would take the whole key as `self`, and the compiler copies it (retaining its strings) to do so.
extension UnsafePointer<MemoryTierKey> {
    /// Whether this is `key`, the cheapest fields first.
    @inline(__always)
    func isKey(_ key: CacheKey) -> Bool {
        switch key.content {
        case .categories(let edition):
            !pointee.isGamesPage && pointee.platform == edition.platform && pointee.language == edition.language
                && isScope(key.scope)
        case .gamesPage(let edition, let categoryId, let offset):
            pointee.isGamesPage && pointee.offset == offset && pointee.categoryId == categoryId
                && pointee.platform == edition.platform && pointee.language == edition.language && isScope(key.scope)
        }
    }

    @inline(__always)
    private func isScope(_ scope: CacheScope) -> Bool {
        switch scope {
        case .global: pointee.user == nil
        case .user(let id): pointee.user == id
        }
    }
}
