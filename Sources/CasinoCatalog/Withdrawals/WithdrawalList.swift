public import Foundation

/// The games the provider has withdrawn (a supplier pulled them, a regulator asked), each
/// everywhere or in the territories named, at a `sequence` that only grows. A list is complete: a
/// newer one replaces an older one, and a game comes back only through a newer list that no
/// longer names it.
///
/// ```json
/// {"sequence": 42, "games": [{"id": "10017"}, {"id": "10021", "territories": ["GB", "CA-ON"]}]}
/// ```
///
/// The cache applies it to every tier at once; `catalog snapshot --withdrawals` leaves games
/// withdrawn everywhere out of a bundle (and restricts the others in their territories), and
/// `catalog validate --withdrawals` fails a snapshot that still shows one. A list is hostile
/// input: ``init(json:)`` refuses one over ``maxJSONBytes`` or ``maxGames`` with a named error.
public struct WithdrawalList: Codable, Sendable, Hashable {
    /// The most games one list names: 100,000.
    public static let maxGames = 100_000
    /// The largest list ``init(json:)`` reads: 8 MiB (100,000 games with a few territories each).
    public static let maxJSONBytes = 8 << 20
    /// The most territories one withdrawal names: 300 (more than there are countries).
    public static let maxTerritories = 300

    /// Where the list stands in the provider's history: from 1 to `Int.max`, each list's greater
    /// than the last one's.
    public var sequence: Int
    /// The games withdrawn, each once.
    public var games: [Withdrawal]

    public init(sequence: Int, games: [Withdrawal]) {
        self.sequence = sequence
        self.games = games
    }

    /// Reads and checks a list's JSON (``checked()``).
    ///
    /// - Throws: ``WithdrawalListError`` naming what is wrong: size, JSON, a record, the sequence.
    public init(json: Data) throws(WithdrawalListError) {
        guard json.count <= Self.maxJSONBytes else {
            throw WithdrawalListError(
                .tooLarge,
                "the list is \(json.count) bytes, over \(Self.maxJSONBytes); split the withdrawals or raise the cap")
        }
        do {
            self = try CatalogCoding.decoder().decode(Self.self, from: json)
        } catch {
            var message = "the list does not decode: \(DecodingFailure.describe(error))"
            if case .dataCorrupted(let context)? = error as? DecodingError, context.codingPath.isEmpty {
                // Foundation's parser refuses a number past Int.max as invalid JSON, before any field.
                message += " (or a number in it is past \(Int.max), the sequence's largest)"
            }
            throw WithdrawalListError(.malformed, message)
        }
        try check()
    }

    /// Checks the list: a sequence from 1, at most ``maxGames`` games, each a valid id named once,
    /// each with at most ``maxTerritories`` territory codes. A malformed code is kept (it withholds
    /// the game everywhere: it cannot be shown not to name the player's territory) but reported by
    /// ``malformedTerritories``.
    ///
    /// - Throws: ``WithdrawalListError`` naming the first record at fault.
    public func check() throws(WithdrawalListError) {
        guard sequence >= 1 else {
            throw WithdrawalListError(.badSequence, "sequence \(sequence) is not a whole number from 1 to \(Int.max)")
        }
        guard games.count <= Self.maxGames else {
            throw WithdrawalListError(
                .tooManyGames, "the list names \(games.count) games, over \(Self.maxGames); split the withdrawals")
        }
        var seen = Set<String>(minimumCapacity: games.count)
        for (index, game) in games.enumerated() {
            guard !game.id.isEmpty, game.id.utf8.count <= CatalogRules.maxIDLength,
                !CatalogRules.hasControlCharacters(game.id)
            else {
                throw WithdrawalListError(
                    .badRecord,
                    "games[\(index)]: the id is empty, longer than \(CatalogRules.maxIDLength) bytes or holds a control character",
                    record: index)
            }
            guard game.territories.count <= Self.maxTerritories else {
                throw WithdrawalListError(
                    .badRecord,
                    "games[\(index)] (\(game.id)): \(game.territories.count) territories, over \(Self.maxTerritories)",
                    record: index)
            }
            guard seen.insert(game.id).inserted else {
                throw WithdrawalListError(
                    .badRecord, "games[\(index)]: \(game.id) is named twice; name each game once", record: index)
            }
        }
    }

    /// The territory codes of the list that are not codes (`games[3].territories[1] "G B"`): each
    /// withholds its game everywhere, so a tool should say so.
    public var malformedTerritories: [String] {
        games.enumerated().flatMap { index, game in
            game.territories.enumerated().compactMap { position, code in
                CatalogRules.isTerritoryCode(code)
                    ? nil : "games[\(index)].territories[\(position)] \"\(code.prefix(40))\""
            }
        }
    }

    /// The list's JSON: keys sorted, no whitespace.
    public func json() -> Data {
        (try? CatalogCoding.encoder().encode(self)) ?? Data()  // strings and integers always encode
    }
}

/// A game withdrawn everywhere (no `territories`) or in the territories named (ISO 3166 codes as
/// in ``Game/restrictedTerritories``: `CA` covers `CA-ON`).
public struct Withdrawal: Codable, Sendable, Hashable {
    /// The game's id.
    public var id: String
    /// Where it is withdrawn; empty: everywhere.
    public var territories: [String]

    public init(id: String, territories: [String] = []) {
        self.id = id
        self.territories = territories
    }

    /// Whether it is withdrawn everywhere.
    public var isEverywhere: Bool { territories.isEmpty }

    private enum CodingKeys: String, CodingKey { case id, territories }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        territories = try container.decodeIfPresent([String].self, forKey: .territories) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        if !territories.isEmpty { try container.encode(territories, forKey: .territories) }
    }
}
