public import Foundation

/// What a cache holds and why, at one moment: for a debug screen, a tester's bug report or a
/// regulator's audit ("why was this game shown in Ontario?"). Taken by ``CatalogCache/inspection(updater:)``
/// without blocking reads; `Codable`, so an app can write it as JSON and attach it to a bug.
///
/// It names no player: player ids are replaced by the first 12 hex digits of their SHA-256, and a
/// player's queued changes are counted, not listed.
///
/// ```swift
/// let report = await cache.inspection()
/// let encoder = JSONEncoder()
/// encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
/// encoder.dateEncodingStrategy = .iso8601
/// try encoder.encode(report).write(to: reportURL)
/// ```
public struct CacheInspection: Codable, Sendable, Hashable {
    /// When it was taken, by the cache's clock.
    public var takenAt: Date
    /// The player's territory, if one is set (``CatalogCache/setTerritory(_:)``).
    public var territory: String?
    /// What is withheld while no territory is known.
    public var unknownTerritoryPolicy: UnknownTerritoryPolicy
    /// The withdrawal list the cache follows.
    public var withdrawals: Withdrawals
    /// The snapshot the bundled tier reads, if there is one.
    public var snapshot: Snapshot?
    /// What the updater installed, when one was given.
    public var overTheAir: OverTheAir?
    /// Every key memory and the disk hold, and each snapshot edition's category list that neither
    /// holds (the order its lobby opens in), sorted by key. The snapshot's pages are not listed:
    /// ``snapshot`` describes the snapshot whole.
    public var entries: [Entry]
    /// The players with changes not yet sent, sorted by hashed id.
    public var players: [Player]
    /// The cache's counters since launch (``CatalogCache/statistics``).
    public var statistics: CacheStatistics

    /// One key, as a read would answer it now.
    public struct Entry: Codable, Sendable, Hashable {
        /// The key's ``CacheKey/description``, with a player's id hashed (`user:#1f2e3d4c5b6a/…`).
        public var key: String
        /// How a read answers it now: ``CacheState/fresh``, ``CacheState/stale`` or ``CacheState/bundled``.
        public var state: CacheState
        /// The tier that answers it (``CacheMetadata/Tier/memory``, ``CacheMetadata/Tier/disk`` or
        /// ``CacheMetadata/Tier/bundled``).
        public var tier: CacheMetadata.Tier
        /// Where the content came from: the upstream, or a snapshot.
        public var source: CacheMetadata.Source
        /// When it was fetched or last revalidated (for a snapshot: its generation time).
        public var storedAt: Date
        /// Its age in seconds when the report was taken.
        public var age: TimeInterval
        /// The upstream's validator, if it sent one.
        public var etag: String?
        /// The SHA-256 of its canonical JSON: what bulk validation sends.
        public var contentHash: String?
        /// The games (or categories) it holds, before any is withheld.
        public var items: Int
        /// Those games (or categories) in order, withheld games included (``withheld`` says which):
        /// what a lobby lists. `nil` in a report written by an earlier build, which did not record it.
        public var listing: [Item]?
        /// The games a read leaves out, and why.
        public var withheld: [WithheldGame]
    }

    /// A game or a category as a lobby lists it.
    public struct Item: Codable, Sendable, Hashable {
        /// The game's or category's id.
        public var id: String
        /// Its display name.
        public var name: String
        /// A game's thumbnail URL; `nil` for a category.
        public var thumbnail: String?
    }

    /// A game left out of an answer.
    public struct WithheldGame: Codable, Sendable, Hashable {
        /// The game's id.
        public var id: String
        /// Why it is left out.
        public var reason: Reason
        /// The territory it is restricted in (``Reason/restricted`` and ``Reason/withdrawn`` in a territory).
        public var territory: String?
        /// The sequence of the withdrawal list that names it (``Reason/withdrawn``).
        public var withdrawalList: Int?

        /// Why a game is left out.
        public enum Reason: String, Codable, Sendable, Hashable {
            /// The provider restricts it in the player's territory.
            case restricted
            /// A withdrawal list withdraws it, everywhere or in the player's territory.
            case withdrawn
            /// It is restricted somewhere and no territory is known
            /// (``UnknownTerritoryPolicy/hideRestrictedAnywhere``).
            case territoryUnknown
            /// It is restricted or withdrawn somewhere and the saved withdrawal list was lost: every
            /// such game is withheld until a list is confirmed.
            case withdrawalListLost
        }
    }

    /// The withdrawal list the cache follows.
    public struct Withdrawals: Codable, Sendable, Hashable {
        /// The complete list's sequence (0: none).
        public var sequence: Int
        /// The sequences of the pushes applied on top of it, oldest first.
        public var pushes: [Int]
        /// The games withdrawn, everywhere or in some territories.
        public var games: Int
        /// Whether the saved list was unreadable at launch: every restricted or withdrawn game is
        /// withheld until a list is applied or confirmed.
        public var isLost: Bool
    }

    /// The snapshot the bundled tier reads: the app's bundle or an over-the-air generation.
    public struct Snapshot: Codable, Sendable, Hashable {
        /// The app's bundle (``CacheMetadata/Source/bundle``) or an over-the-air generation
        /// (``CacheMetadata/Source/overTheAir``).
        public var source: CacheMetadata.Source
        /// When the pipeline fetched the catalogue it holds.
        public var generatedAt: Date
        /// The SHA-256 of its content (the manifest's `contentHash`).
        public var contentHash: String
        /// The editions it holds.
        public var editions: [String]
        /// Its files that failed their checks since launch (served by the upstream instead).
        public var corruptFiles: Int
    }

    /// What a ``SnapshotUpdater`` installed (``CatalogCache/inspection(updater:)``).
    public struct OverTheAir: Codable, Sendable, Hashable {
        /// The generation serving since launch; `nil` when the bundle serves.
        public var serving: String?
        /// The newest generation installed (it serves from the next launch when it is not ``serving``),
        /// or `nil` when none is, or its signed manifest no longer verifies.
        public var installed: Generation?
        /// Generations replaced, kept for readers in other processes (widgets), oldest first.
        public var retired: [Retired]

        /// An installed generation, as its signed manifest says.
        public struct Generation: Codable, Sendable, Hashable {
            /// Its directory's name, `v<version>-<12 hex digits>`.
            public var name: String
            /// The published version.
            public var version: Int
            /// When `catalog publish` signed it, and when the signature expires.
            public var publishedAt: Date
            public var expiresAt: Date
            /// The id of the key that signed it.
            public var signingKey: String
            /// The version of the signed key list it came with, if any.
            public var keyListVersion: Int?
        }

        /// A replaced generation.
        public struct Retired: Codable, Sendable, Hashable {
            public var name: String
            /// When it stopped being current.
            public var since: Date
        }
    }

    /// A player with changes not yet accepted by the upstream.
    public struct Player: Codable, Sendable, Hashable {
        /// The first 12 hex digits of the SHA-256 of the player's id.
        public var player: String
        /// Changes queued, the one being sent included.
        public var queued: Int
        /// Whether the last send could not reach the upstream (the changes wait for a retry).
        public var isWaitingToRetry: Bool
    }
}
