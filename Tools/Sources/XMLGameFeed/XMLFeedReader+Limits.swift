extension XMLFeedReader {
    /// Caps that bound the work and memory one hostile feed can cost.
    ///
    /// ```swift
    /// var limits = XMLFeedReader.Limits.default
    /// limits.maxGames = 50_000
    /// ```
    public struct Limits: Sendable, Hashable {
        /// The largest document accepted, in bytes: 64 MiB by default.
        public var maxBytes: Int
        /// The most `<game>` elements accepted: 200,000 by default.
        public var maxGames: Int
        /// The most bytes of text (or attribute value) in one element: 64 KiB by default.
        public var maxTextBytes: Int
        /// The deepest element nesting accepted, the root being 1: 32 by default.
        public var maxDepth: Int
        /// The most attributes in one start tag: 64 by default (the feed's elements use at most 5). libxml2's work on a start tag
        /// grows with the square of its attributes, so the tag is refused before it is parsed.
        public var maxAttributes: Int

        public init(
            maxBytes: Int = 64 << 20, maxGames: Int = 200_000, maxTextBytes: Int = 64 << 10, maxDepth: Int = 32,
            maxAttributes: Int = 64
        ) {
            self.maxBytes = maxBytes
            self.maxGames = maxGames
            self.maxTextBytes = maxTextBytes
            self.maxDepth = maxDepth
            self.maxAttributes = maxAttributes
        }

        /// 64 MiB, 200,000 games, 64 KiB of text per element, 32 levels, 64 attributes per tag.
        public static let `default` = Limits()
    }
}
