@_spi(CatalogTools) public import CasinoCatalog
public import Foundation

/// A withdrawal list file (`--withdrawals FILE`): the provider's ``WithdrawalList``.
public enum WithdrawalListFile {
    /// Reads and checks the list at `url`.
    ///
    /// - Throws: ``PipelineError`` naming the file and the record: `.missingInput` when there is no
    ///   such file, `.inputTooLarge` over ``WithdrawalList/maxJSONBytes``, `.malformedInput` when it
    ///   is not a valid list.
    public static func read(from url: URL) throws(PipelineError) -> WithdrawalList {
        let data = try FileInput.read(url, limit: WithdrawalList.maxJSONBytes, what: "withdrawal list")
        do {
            return try WithdrawalList(json: data)
        } catch {
            throw PipelineError(
                error.code == .tooLarge || error.code == .tooManyGames ? .inputTooLarge : .malformedInput,
                "\(error.message); fix the withdrawal list", file: url.relativePath,
                record: error.record.map { "games[\($0)]" },
                cause: error)
        }
    }
}
