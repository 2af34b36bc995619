/// Refuses keys a configuration type does not know, so a typo (`"editons"`) is an error naming the
/// key and the nearest known one instead of a silently ignored setting.
@_spi(CatalogTools) public enum KnownKeys {
    /// Throws `DecodingError.dataCorrupted` for the first key of `decoder`'s object not in `known`.
    @_spi(CatalogTools) public static func check(_ decoder: any Decoder, known: [String]) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys.map(\.stringValue).sorted() where !known.contains(key) {
            let nearest = known.min { distance(key, $0) < distance(key, $1) }
            let hint = nearest.map { distance(key, $0) <= max(2, $0.count / 3) ? " (did you mean '\($0)'?)" : "" } ?? ""
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath + [AnyKey(stringValue: key)],
                    debugDescription: "unknown key\(hint); known keys: \(known.sorted().joined(separator: ", "))"))
        }
    }

    /// The Levenshtein distance between `a` and `b`.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased())
        let b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for (i, ca) in a.enumerated() {
            var current = [i + 1]
            for (j, cb) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (ca == cb ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
