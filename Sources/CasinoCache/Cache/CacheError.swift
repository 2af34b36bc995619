/// Why the cache could not get a value from its upstream.
public struct CacheError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// The key concerned.
    public var key: CacheKey
    /// What went wrong, for people.
    public var message: String
    /// The upstream's error, when there is one.
    public var cause: (any Error & Sendable)?

    public init(_ code: Code, key: CacheKey, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code
        self.key = key
        self.message = message
        self.cause = cause
    }

    public var description: String { "\(key): \(message)" }

    /// A stable code per failure. Extensible: new failures add new static values.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The upstream threw (offline, server error…); see ``CacheError/cause``.
        public static let upstreamFailed = Code(rawValue: "upstream-failed")
        /// The upstream did not answer within the configured timeout.
        public static let timedOut = Code(rawValue: "timed-out")
        /// The upstream answered content that breaks the schema or is not what was asked for.
        public static let invalidContent = Code(rawValue: "invalid-content")
        /// The request cannot name any content (a negative or impossibly large page offset).
        public static let invalidRequest = Code(rawValue: "invalid-request")
        /// The upstream answered "not modified" for content the cache does not hold.
        public static let notModifiedWithoutEntry = Code(rawValue: "not-modified-without-entry")
        /// What is cached is older than ``CatalogCache/Configuration/maxContentAge`` and the upstream
        /// could not answer (`cause`): nothing is shown until it can ("connect to update").
        public static let contentTooOld = Code(rawValue: "content-too-old")
        /// The server refused a player's change (``CacheError/cause`` says how); it was undone.
        public static let mutationRejected = Code(rawValue: "mutation-rejected")
        /// A player's change was dropped unsent: the offline queue was full
        /// (``CatalogCache/Configuration/maxQueuedMutations``); it was undone.
        public static let mutationDropped = Code(rawValue: "mutation-dropped")
    }
}
