@_spi(CatalogTools) public import CasinoCatalog

extension PipelineConfiguration {
    /// Which game images the snapshot bundles, so the first screen of the lobby has its pictures on
    /// the first frame, offline. Off unless the configuration has a `bundleImages` object; every key
    /// of it but ``allowedHosts`` has a documented default.
    ///
    /// The plan takes, in each edition, each category's first page (offset 0) and its first
    /// ``gamesPerCategory`` games, and of each game the ``fields``. Images are kept in order of
    /// position: every category's first game, then every second game, and so on, so that over
    /// ``budgetBytesPerEdition`` the lowest positions are dropped first (and reported).
    ///
    /// ```json
    /// "bundleImages": {"allowedHosts": ["static.example-cdn.com"], "gamesPerCategory": 6,
    ///                  "maxImageBytes": 262144, "budgetBytesPerEdition": 2097152}
    /// ```
    public struct ImageBundling: Codable, Sendable, Hashable {
        /// The image fields of a game that are bundled: `["thumbnail"]` by default.
        public var fields: [ImageField] = [.thumbnail]
        /// Games per category whose images are bundled, from the top of its first page: 6 by
        /// default (a phone's first screen of a category row).
        public var gamesPerCategory = 6
        /// The largest image bundled; a larger one is refused with a warning and its game keeps its
        /// URL: 256 KiB by default. At most `snapshotLimits.maxImageBytes`.
        public var maxImageBytes = 256 << 10
        /// The most image bytes one edition's games may use, each file counted once: 2 MiB by
        /// default. At most `snapshotLimits.maxImageTotalBytes`.
        public var budgetBytesPerEdition = 2 << 20
        /// The hosts images may be fetched from, and redirected to (exact, case-insensitive names;
        /// `*.example.com` matches subdomains). Required: there is no default.
        public var allowedHosts: [String] = []

        /// An image field of a game.
        public enum ImageField: String, Codable, Sendable, Hashable, CaseIterable {
            /// `Game.thumbnail`, the lobby tile.
            case thumbnail
            /// `Game.backgroundImageUrl`, the detail screen's backdrop.
            case backgroundImageUrl
        }

        public init(allowedHosts: [String]) {
            self.allowedHosts = allowedHosts
        }

        public init(from decoder: any Decoder) throws {
            try KnownKeys.check(
                decoder,
                known: ["fields", "gamesPerCategory", "maxImageBytes", "budgetBytesPerEdition", "allowedHosts"])
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let defaults = ImageBundling(allowedHosts: [])
            fields = try container.decodeIfPresent([ImageField].self, forKey: .fields) ?? defaults.fields
            gamesPerCategory =
                try container.decodeIfPresent(Int.self, forKey: .gamesPerCategory) ?? defaults.gamesPerCategory
            maxImageBytes = try container.decodeIfPresent(Int.self, forKey: .maxImageBytes) ?? defaults.maxImageBytes
            budgetBytesPerEdition =
                try container.decodeIfPresent(Int.self, forKey: .budgetBytesPerEdition)
                ?? defaults.budgetBytesPerEdition
            allowedHosts = try container.decodeIfPresent([String].self, forKey: .allowedHosts) ?? []
        }

        /// Whether `host` is one of ``allowedHosts`` (a `*.` entry matches any subdomain, not the
        /// domain itself).
        public func allows(host: String) -> Bool {
            let host = host.lowercased()
            return allowedHosts.contains { allowed in
                let allowed = allowed.lowercased()
                if allowed.hasPrefix("*.") {
                    return host.hasSuffix(allowed.dropFirst(1)) && host.count > allowed.count - 1
                }
                return host == allowed
            }
        }

        /// Checks the values are usable against the snapshot contract's caps.
        ///
        /// - Throws: ``PipelineError`` with code `.invalidConfiguration` naming the bad value.
        public func check(limits: SnapshotLimits, file: String?) throws(PipelineError) {
            func fail(_ message: String) -> PipelineError {
                PipelineError(.invalidConfiguration, "bundleImages.\(message)", file: file)
            }
            guard !fields.isEmpty, Set(fields).count == fields.count else {
                throw fail(
                    "fields must list thumbnail and/or backgroundImageUrl once each, got \(fields.map(\.rawValue))")
            }
            guard (1...CatalogRules.maxPageSize).contains(gamesPerCategory) else {
                throw fail("gamesPerCategory must be 1...\(CatalogRules.maxPageSize), got \(gamesPerCategory)")
            }
            guard (1...limits.maxImageBytes).contains(maxImageBytes) else {
                throw fail(
                    "maxImageBytes must be 1...\(limits.maxImageBytes) (snapshotLimits.maxImageBytes), got \(maxImageBytes)"
                )
            }
            guard (1...limits.maxImageTotalBytes).contains(budgetBytesPerEdition) else {
                throw fail(
                    "budgetBytesPerEdition must be 1...\(limits.maxImageTotalBytes) (snapshotLimits.maxImageTotalBytes), got \(budgetBytesPerEdition)"
                )
            }
            guard !allowedHosts.isEmpty else {
                throw fail("allowedHosts is empty: list the image hosts, e.g. [\"static.example-cdn.com\"]")
            }
            for host in allowedHosts {
                let name = host.hasPrefix("*.") ? String(host.dropFirst(2)) : host
                let isHostName =
                    !name.isEmpty && name.count <= 253
                    && name.utf8.allSatisfy {
                        $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0 | 0x20)
                            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    }
                guard isHostName else {
                    throw fail("allowedHosts holds '\(host.prefix(100))', which is not a host name")
                }
            }
        }
    }
}
