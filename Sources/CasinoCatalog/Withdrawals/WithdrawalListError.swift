/// Why a withdrawal list was refused; the list held before stays.
public struct WithdrawalListError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public var code: Code
    /// What went wrong and what to do, for people.
    public var message: String
    /// The index in `games` of the record at fault, when one is.
    public var record: Int?

    public init(_ code: Code, _ message: String, record: Int? = nil) {
        self.code = code
        self.message = message
        self.record = record
    }

    public var description: String { "\(code): \(message)" }

    public enum Code: String, Sendable, Hashable {
        /// Over ``WithdrawalList/maxJSONBytes``.
        case tooLarge
        /// Over ``WithdrawalList/maxGames``.
        case tooManyGames
        /// Not JSON, or not a list's shape (a missing field, a wrong type, a number past `Int.max`).
        case malformed
        /// A record is not a withdrawal: an empty or overlong id, a repeated one, too many territories.
        case badRecord
        /// The sequence is below 1.
        case badSequence
        /// The sequence is not newer than the list held: a replay, refused.
        case notNewer
    }
}
