import Foundation

/// A value that can check itself against the schema's rules.
public protocol Validatable {
    /// Every rule the value breaks; empty when it is valid.
    func violations() -> [Violation]
}

extension Validatable {
    /// Whether the value breaks no rule.
    public var isValid: Bool { violations().isEmpty }
}

extension Vendor: Validatable {
    public func violations() -> [Violation] {
        var check = ViolationCollector()
        check.requireText(id, at: "id", maxLength: CatalogRules.maxIDLength)
        check.requireText(name, at: "name", maxLength: CatalogRules.maxNameLength)
        check.requireHTTPS(logo, at: "logo")
        return check.violations
    }
}

extension Game: Validatable {
    public func violations() -> [Violation] {
        var check = ViolationCollector()
        check.requireText(id, at: "id", maxLength: CatalogRules.maxIDLength)
        check.requireText(name, at: "name", maxLength: CatalogRules.maxNameLength)
        check.requireText(slug, at: "slug", maxLength: CatalogRules.maxNameLength)
        check.requireHTTPS(launchUrl, at: "launchUrl")
        check.requireHTTPS(thumbnail, at: "thumbnail")
        check.requireHTTPS(backgroundImageUrl, at: "backgroundImageUrl")
        // Bytes ≥ characters: count characters only when the bytes are over.
        if let description, description.utf8.count > CatalogRules.maxDescriptionLength,
            description.count > CatalogRules.maxDescriptionLength
        {
            check.add(.tooLong, at: "description", "longer than \(CatalogRules.maxDescriptionLength) characters")
        }
        if !popularity.isFinite {
            check.add(.outOfRange, at: "popularity", "must be a finite number, got \(popularity)")
        }
        if let rtp, !(rtp > 0 && rtp <= 1) {
            check.add(.outOfRange, at: "rtp", "must be a fraction in (0, 1], got \(rtp)")
        }
        if !zip(platforms, platforms.dropFirst()).allSatisfy({ $0 < $1 }) {  // strictly increasing: sorted and unique
            check.add(.malformed, at: "platforms", "must be sorted and unique")
        }
        for (index, tag) in tags.enumerated() {
            check.requireText(tag, at: "tags[\(index)]", maxLength: CatalogRules.maxNameLength)
        }
        for (index, code) in restrictedTerritories.enumerated() where !CatalogRules.isTerritoryCode(code) {
            check.add(.malformed, at: "restrictedTerritories[\(index)]", "not an ISO 3166 code: '\(code.prefix(20))'")
        }
        if let vendor {
            check.add(contentsOf: vendor.violations(), under: "vendor")
        }
        return check.violations
    }
}

extension Category: Validatable {
    public func violations() -> [Violation] {
        var check = ViolationCollector()
        check.requireText(id, at: "id", maxLength: CatalogRules.maxIDLength)
        check.requireText(name, at: "name", maxLength: CatalogRules.maxNameLength)
        check.requireHTTPS(href, at: "href")
        if !(1...CatalogRules.maxGamesTotal).contains(gamesTotal) {
            check.add(
                .outOfRange, at: "gamesTotal",
                "must be 1...\(CatalogRules.maxGamesTotal) (empty categories are not bundled), got \(gamesTotal)")
        }
        return check.violations
    }
}

extension CategoryList: Validatable {
    public func violations() -> [Violation] {
        var check = ViolationCollector()
        if items.isEmpty {
            check.add(.emptyField, at: "items", "an edition needs at least one category")
        }
        for (index, category) in items.enumerated() {
            check.add(contentsOf: category.violations(), under: "items[\(index)]")
        }
        check.requireUniqueIDs(items.map(\.id), at: "items")
        return check.violations
    }
}

extension GamesPage: Validatable {
    public func violations() -> [Violation] {
        var check = ViolationCollector()
        check.requireText(categoryId, at: "categoryId", maxLength: CatalogRules.maxIDLength)
        if count != items.count {
            check.add(.pageArithmetic, at: "count", "says \(count) but the page holds \(items.count) items")
        }
        // Every number is bounded before any arithmetic on it: a hostile file may hold Int.max.
        let isLimitUsable = (1...CatalogRules.maxPageSize).contains(limit)
        let isTotalUsable = (1...CatalogRules.maxGamesTotal).contains(total)
        if !isLimitUsable {
            check.add(.pageArithmetic, at: "limit", "must be 1...\(CatalogRules.maxPageSize), got \(limit)")
        }
        if !isTotalUsable {
            check.add(
                .pageArithmetic, at: "total",
                "must be 1...\(CatalogRules.maxGamesTotal) (empty categories are not bundled), got \(total)")
        }
        if offset < 0 || (isLimitUsable && offset % limit != 0) {
            check.add(.pageArithmetic, at: "offset", "must be a non-negative multiple of limit \(limit), got \(offset)")
        } else if isTotalUsable && offset >= total {
            check.add(.pageArithmetic, at: "offset", "\(offset) is past the category's total \(total)")
        } else if isTotalUsable && items.count > total - offset {
            check.add(.pageArithmetic, at: "total", "offset \(offset) + \(items.count) items exceeds total \(total)")
        }
        if isLimitUsable && items.count > limit {
            check.add(.pageArithmetic, at: "items", "holds \(items.count) items, more than limit \(limit)")
        }
        for index in items.indices {  // not `enumerated()`, whose elements are copies
            check.add(contentsOf: items[index].violations(), under: "items[\(index)]")
        }
        check.requireUniqueIDs(items.map(\.id), at: "items")
        return check.violations
    }
}
