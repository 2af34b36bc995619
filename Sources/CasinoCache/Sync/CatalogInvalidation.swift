@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// A push invalidation: the keys, and categories' pages, the provider changed, and the games it
/// withdrew, as a remote notification carries them. Hand it to ``CatalogCache/markStale(_:)``.
///
/// The payload, under the notification's own keys (`aps` and others are ignored); either part may
/// be left out:
///
/// ```json
/// {"catalog": {"invalidate": ["en-iPhone/categories", "en-iPhone/games/VIDEOSLOTS/*"],
///              "withdraw": {"sequence": 43, "games": [{"id": "10017"}, {"id": "10021", "territories": ["GB"]}]}}}
/// ```
///
/// `withdraw` has a ``WithdrawalList``'s shape, but adds its games to those withdrawn (a push
/// never returns a game); its sequence must be newer than every one the cache has seen.
///
/// ```swift
/// func application(_ app: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any]) async
///     -> UIBackgroundFetchResult {
///     guard let push = try? CatalogInvalidation(userInfo: userInfo) else { return .noData }
///     let report = await cache.markStale(push)
///     return report.refreshed > 0 ? .newData : .noData
/// }
/// ```
///
/// Payloads are hostile input: at most ``maxPatterns`` patterns are taken, each at most
/// ``SnapshotKeyPattern/maxTextBytes``; entries that are not patterns (wrong type, malformed
/// key) are skipped and counted in ``rejected``, with the first reasons in ``problems``.
public struct CatalogInvalidation: Sendable, Hashable {
    /// The most patterns taken from one payload: 1,000. Later ones count as rejected.
    public static let maxPatterns = 1000
    /// The largest JSON payload ``init(json:)`` reads: 64 KiB (a remote notification carries 4).
    public static let maxJSONBytes = 64 << 10
    /// How many reasons ``problems`` keeps.
    static let maxProblems = 10

    /// The keys and category wildcards named, in payload order, without repeats.
    public var patterns: [SnapshotKeyPattern]
    /// Entries of the list that were skipped: not strings, not keys, too long, or over the cap.
    public var rejected: Int
    /// Why the first rejected entries were skipped (at most 10), for the log.
    public var problems: [String]
    /// The games the push withdraws, when it has a valid `withdraw` object.
    public var withdrawals: WithdrawalList?
    /// Why its `withdraw` object was refused, when it has an invalid one (the invalidation stands).
    public var withdrawalError: WithdrawalListError?

    /// An invalidation of `patterns`.
    public init(patterns: [SnapshotKeyPattern]) {
        self.patterns = patterns
        rejected = 0
        problems = []
    }

    /// Reads a remote notification's `userInfo`.
    ///
    /// - Throws: ``CatalogInvalidationError`` when there is no `catalog` object with an
    ///   `invalidate` list (`.notACatalogPush`, so an app can pass every notification through).
    public init(userInfo: [AnyHashable: Any]) throws(CatalogInvalidationError) {
        guard let catalog = userInfo["catalog"] else {
            throw CatalogInvalidationError(.notACatalogPush, "the notification has no \"catalog\" object")
        }
        let fields: [AnyHashable: Any]
        if let dictionary = catalog as? [AnyHashable: Any] {
            fields = dictionary
        } else if let dictionary = catalog as? [String: Any] {
            fields = Dictionary(uniqueKeysWithValues: dictionary.map { (AnyHashable($0.key), $0.value) })
        } else {
            throw CatalogInvalidationError(.malformed, "\"catalog\" is \(type(of: catalog)), not an object")
        }
        self.init(patterns: [])
        if let withdraw = fields["withdraw"] {
            do throws(WithdrawalListError) {
                withdrawals = try Self.withdrawals(withdraw)
            } catch {
                withdrawalError = error
            }
        }
        guard let list = fields["invalidate"] as? [Any] else {
            guard fields["invalidate"] == nil, fields["withdraw"] != nil else {
                throw CatalogInvalidationError(.malformed, "\"catalog.invalidate\" is missing or not a list")
            }
            return
        }
        var seen = Set<SnapshotKeyPattern>()
        for (index, item) in list.enumerated() {
            guard index < Self.maxPatterns else {
                reject("entries past the first \(Self.maxPatterns) are ignored")
                rejected += list.count - index - 1
                break
            }
            guard let text = item as? String else {
                reject("invalidate[\(index)] is \(type(of: item)), not a string")
                continue
            }
            guard let pattern = SnapshotKeyPattern(text) else {
                reject("invalidate[\(index)] \"\(text.prefix(80))\" is not a key or a category's \"/*\"")
                continue
            }
            if seen.insert(pattern).inserted { patterns.append(pattern) }
        }
    }

    /// Reads the payload as JSON (what a test, a silent push relayed by the app's server, or the
    /// simulator's `/_admin/bump` gives).
    ///
    /// - Throws: ``CatalogInvalidationError`` when it is over ``maxJSONBytes``, not a JSON object,
    ///   or has no `catalog.invalidate` list.
    public init(json: Data) throws(CatalogInvalidationError) {
        guard json.count <= Self.maxJSONBytes else {
            throw CatalogInvalidationError(.malformed, "the payload is \(json.count) bytes, over \(Self.maxJSONBytes)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: json), let userInfo = object as? [String: Any] else {
            throw CatalogInvalidationError(.malformed, "the payload is not a JSON object")
        }
        try self.init(userInfo: Dictionary(uniqueKeysWithValues: userInfo.map { (AnyHashable($0.key), $0.value) }))
    }

    /// The withdrawal list of a push's `withdraw` object.
    private static func withdrawals(_ object: Any) throws(WithdrawalListError) -> WithdrawalList {
        guard JSONSerialization.isValidJSONObject(object),
            let json = try? JSONSerialization.data(withJSONObject: object)
        else {
            throw WithdrawalListError(.malformed, "\"catalog.withdraw\" is \(type(of: object)), not an object")
        }
        return try WithdrawalList(json: json)
    }

    private mutating func reject(_ problem: String) {
        rejected += 1
        if problems.count < Self.maxProblems { problems.append(problem) }
    }
}

/// Why a notification is not a catalogue invalidation.
public struct CatalogInvalidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// What went wrong, for people.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    /// A stable code per failure.
    public enum Code: String, Sendable, Hashable, CustomStringConvertible {
        /// Another kind of notification: no `catalog` object.
        case notACatalogPush = "not-a-catalog-push"
        /// A `catalog` object of the wrong shape, or a payload that is not JSON or too large.
        case malformed

        public var description: String { rawValue }
    }
}
