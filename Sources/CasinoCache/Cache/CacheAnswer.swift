/// How a lookup that found something was answered: the cases of ``CacheResult`` other than a miss.
///
/// Decided once per lookup and counted in ``CacheStatistics``; memory hits are counted by the
/// memory tier under the lock it already holds, so a hit takes one lock, not two.
enum CacheAnswer {
    case fresh, stale, bundled
}

/// Answers counted so far, by kind.
struct AnswerCounts {
    var fresh = 0
    var stale = 0
    var bundled = 0

    mutating func count(_ answer: CacheAnswer) {
        switch answer {
        case .fresh: fresh += 1
        case .stale: stale += 1
        case .bundled: bundled += 1
        }
    }

    /// Adds these counts into `statistics`.
    func add(to statistics: inout CacheStatistics) {
        statistics.fresh += fresh
        statistics.stale += stale
        statistics.bundled += bundled
    }
}
