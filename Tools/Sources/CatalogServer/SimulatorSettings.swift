/// The simulator's knobs: latency, injected faults and the catalogue's version. Set at start
/// (flags) and changed at run time (`POST /_admin/settings` with this as JSON).
///
/// ```json
/// {"latencyMilliseconds": [2000, 5000], "errorRate": 0.1,
///  "faults": [{"kind": "malformed", "query": "offset=20", "count": 1}]}
/// ```
public struct SimulatorSettings: Codable, Sendable, Hashable {
    /// The delay before each answer, a fixed value or a range picked at random: none by default.
    public var latencyMilliseconds: [Int] = [0]
    /// The share of API requests answered `500` or `503` at random: 0 by default.
    public var errorRate: Double = 0
    /// The share of API requests answered `429` with `Retry-After` at random: 0 by default.
    public var rateLimitRate: Double = 0
    /// The `Retry-After` seconds sent with a `429`: 1 by default.
    public var retryAfterSeconds: Int = 1
    /// Faults for matching requests, tried in order before the random ones.
    public var faults: [Fault] = []
    /// The catalogue's version: raising it changes every game name (to test refreshes). 1 by default.
    public var version: Int = 1
    /// `Cache-Control: max-age` in seconds: 60 by default.
    public var maxAgeSeconds: Int = 60
    /// The seed of the random choices, so a run can be repeated: 2026 by default.
    public var seed: UInt64 = 2026

    public init() {}

    /// Decodes settings; keys left out keep their defaults, so `{"version": 2}` is a whole body.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = SimulatorSettings()
        latencyMilliseconds =
            try container.decodeIfPresent([Int].self, forKey: .latencyMilliseconds) ?? defaults.latencyMilliseconds
        errorRate = try container.decodeIfPresent(Double.self, forKey: .errorRate) ?? defaults.errorRate
        rateLimitRate = try container.decodeIfPresent(Double.self, forKey: .rateLimitRate) ?? defaults.rateLimitRate
        retryAfterSeconds =
            try container.decodeIfPresent(Int.self, forKey: .retryAfterSeconds) ?? defaults.retryAfterSeconds
        faults = try container.decodeIfPresent([Fault].self, forKey: .faults) ?? defaults.faults
        version = try container.decodeIfPresent(Int.self, forKey: .version) ?? defaults.version
        maxAgeSeconds = try container.decodeIfPresent(Int.self, forKey: .maxAgeSeconds) ?? defaults.maxAgeSeconds
        seed = try container.decodeIfPresent(UInt64.self, forKey: .seed) ?? defaults.seed
    }

    /// The first setting out of its range, with a message saying so; `nil` when all are usable.
    /// Checked wherever settings arrive (flags, `POST /_admin/settings`): every later computation
    /// on them (latency ranges, `Retry-After`, statuses) then stays far from overflow.
    public var problem: String? {
        let day = 86_400
        if !(1...2).contains(latencyMilliseconds.count)
            || !latencyMilliseconds.allSatisfy({ (0...(day * 1000)).contains($0) })
        {
            return "latencyMilliseconds must be one or two values in 0...\(day * 1000), got \(latencyMilliseconds)"
        }
        if !(0...1).contains(errorRate) || !(0...1).contains(rateLimitRate) || errorRate + rateLimitRate > 1 {
            return "errorRate and rateLimitRate must be fractions in 0...1 that add up to at most 1"
        }
        if !(0...day).contains(retryAfterSeconds) { return "retryAfterSeconds must be 0...\(day)" }
        if !(0...1_000_000).contains(version) { return "version must be 0...1000000" }
        if !(0...(365 * day)).contains(maxAgeSeconds) { return "maxAgeSeconds must be 0...\(365 * day)" }
        for (index, fault) in faults.enumerated() {
            if let count = fault.count, count < 0 { return "faults[\(index)].count must not be negative" }
            if let status = fault.status, !(100...599).contains(status) {
                return "faults[\(index)].status must be 100...599"
            }
            if let milliseconds = fault.milliseconds, !(0...(day * 1000)).contains(milliseconds) {
                return "faults[\(index)].milliseconds must be 0...\(day * 1000)"
            }
        }
        return nil
    }

    /// A fault injected into requests whose path and query contain the given texts.
    public struct Fault: Codable, Sendable, Hashable {
        /// What happens.
        public var kind: Kind
        /// Only requests whose path contains this (`/games`); any when `nil`.
        public var path: String?
        /// Only requests whose raw query contains this (`offset=20`); any when `nil`.
        public var query: String?
        /// How many requests it hits before it is used up; forever when `nil`.
        public var count: Int?
        /// The status for `.status` (500, 503, 429, 404 …): 500 by default.
        public var status: Int?
        /// How long `.stall` holds the body, in milliseconds: 60 seconds by default.
        public var milliseconds: Int?
        /// What `.body` answers instead of the real body; for `.redirect`, the `Location`.
        public var body: String?

        public init(
            kind: Kind, path: String? = nil, query: String? = nil, count: Int? = nil, status: Int? = nil,
            milliseconds: Int? = nil,
            body: String? = nil
        ) {
            self.kind = kind
            self.path = path
            self.query = query
            self.count = count
            self.status = status
            self.milliseconds = milliseconds
            self.body = body
        }

        /// The kinds of fault.
        public enum Kind: String, Codable, Sendable, Hashable {
            /// Answer with `status` (a 429 carries `Retry-After`).
            case status
            /// Answer `200` with JSON that does not parse.
            case malformed
            /// Send half the body, then close the connection.
            case truncated
            /// Send half the body, then wait `milliseconds` before the rest.
            case stall
            /// Answer `200` with `body` instead of the real body (answers of the wrong shape).
            case body
            /// Announce a 2 GiB body and send zeros until the client gives up.
            case oversized
            /// Answer `302 Found` with `Location: body` (images only).
            case redirect
            /// Answer the body with 10 bytes more than it has (`Content-Length` agrees), as a CDN
            /// serving another version of a file would.
            case longer
            /// Answer the body 10 bytes short (`Content-Length` agrees).
            case shorter
            /// Answer the body with its middle byte flipped: same size, other content.
            case flipped
        }
    }
}
