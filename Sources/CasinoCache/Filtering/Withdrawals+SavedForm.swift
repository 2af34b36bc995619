@_spi(CatalogTools) public import CasinoCatalog
import CatalogSupport
public import Foundation

/// The withdrawals as the `Withdrawals` file saves them: read at launch, before the first frame, so
/// read in one pass over lines rather than decoded as JSON (a 1,000-game list in a tenth of the time).
///
/// ```
/// casinocache-withdrawals 1
/// list 42 2            the complete list: its sequence and how many game lines follow
/// 10017                a game withdrawn everywhere
/// 10021<TAB>GB,CA-ON   a game withdrawn in territories (a code that is not one saved as ?)
/// push 43 1            each push after it, the same way
/// 10055
/// end
/// ```
///
/// The counts and the last line make a file cut short at any byte unreadable, never a shorter list.
/// Ids hold no tab or line break (``WithdrawalList/check()``); a malformed territory code is saved
/// as `?`, itself malformed, so the game stays withheld wherever the original withheld it.
extension Withdrawals {
    static let savedHeader = "casinocache-withdrawals 1"

    /// The saved form.
    @_spi(CatalogTools) public func savedForm() -> Data {
        var text = Self.savedHeader + "\n"
        for (kind, saved) in (list.map { [("list", $0)] } ?? []) + pushes.map({ ("push", $0) }) {
            text += "\(kind) \(saved.sequence) \(saved.games.count)\n"
            for game in saved.games {
                text += game.id
                if !game.territories.isEmpty {
                    text += "\t" + game.territories.map { CatalogRules.territoryCode($0) ?? "?" }.joined(separator: ",")
                }
                text += "\n"
            }
        }
        return Data((text + "end\n").utf8)
    }

    /// Reads a saved form and checks it (``check()``).
    ///
    /// - Throws: ``WithdrawalListError`` naming the line at fault: `.malformed` for a file that is
    ///   not this form, cut short, or holds a number out of range; the list's own errors otherwise.
    @_spi(CatalogTools) public init(savedForm data: Data) throws(WithdrawalListError) {
        // Over the raw bytes: slices of `Data` would each allocate.
        let read = data.withUnsafeBytes { raw in Result { () throws(WithdrawalListError) in try Self.lists(in: raw) } }
        let lists = try read.get()
        let complete = lists.first.flatMap { $0.isPush ? nil : $0.list }
        self.init(list: complete, pushes: lists.dropFirst(complete == nil ? 0 : 1).map(\.list))
        try check()
    }

    /// The lists of a saved form, in order, each marked a push or the complete one.
    private static func lists(
        in raw: UnsafeRawBufferPointer
    ) throws(WithdrawalListError) -> [(isPush: Bool, list: WithdrawalList)] {
        let lines = raw.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        func malformed(_ line: Int, _ what: String) -> WithdrawalListError {
            WithdrawalListError(.malformed, "saved withdrawals, line \(line + 1): \(what)")
        }
        guard lines.count >= 3, lines[0].elementsEqual(savedHeader.utf8) else {
            throw malformed(0, "not a saved withdrawal list (the first line is not '\(savedHeader)')")
        }
        // Everything after the last line break must be nothing, and the line before it `end`.
        guard lines[lines.count - 1].isEmpty, lines[lines.count - 2].elementsEqual("end".utf8) else {
            throw malformed(lines.count - 1, "cut short: no 'end' line")
        }
        var lists: [(isPush: Bool, list: WithdrawalList)] = []
        var index = 1
        let end = lines.count - 2
        while index < end {
            let fields = lines[index].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].elementsEqual("list".utf8) || fields[0].elementsEqual("push".utf8),
                let sequence = CanonicalDecimal.value(of: fields[1]), sequence >= 1,
                let count = CanonicalDecimal.value(of: fields[2]), count <= WithdrawalList.maxGames,
                count <= end - index - 1
            else {
                throw malformed(
                    index, "expected 'list <sequence> <games>' or 'push …', numbers in range, and as many game lines")
            }
            let isPush = fields[0].elementsEqual("push".utf8)
            guard isPush || lists.isEmpty else { throw malformed(index, "the complete list comes before the pushes") }
            var games: [Withdrawal] = []
            games.reserveCapacity(count)
            for line in lines[(index + 1)..<(index + 1 + count)] {
                let tab = line.firstIndex(of: UInt8(ascii: "\t"))
                let territories =
                    tab.map { tab in
                        line[(tab + 1)...].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map {
                            String(decoding: $0, as: UTF8.self)
                        }
                    } ?? []
                games.append(
                    Withdrawal(
                        id: String(decoding: line[..<(tab ?? line.endIndex)], as: UTF8.self), territories: territories))
            }
            lists.append((isPush, WithdrawalList(sequence: sequence, games: games)))
            index += 1 + count
        }
        return lists
    }
}
