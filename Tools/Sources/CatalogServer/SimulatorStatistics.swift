/// What the simulator has served, readable by tests at `GET /_stats`.
public struct SimulatorStatistics: Codable, Sendable, Hashable {
    /// Requests per route (`/v1/casino/games`).
    public var requests: [String: Int] = [:]
    /// Responses per status code (`"200"`, `"304"`).
    public var statuses: [String: Int] = [:]
    /// Body bytes sent.
    public var bodyBytes = 0

    public init() {}

    /// All API requests.
    public var totalRequests: Int { requests.values.reduce(0, +) }

    /// Responses with `status`.
    public func count(status: Int) -> Int { statuses[String(status)] ?? 0 }
}
