/// Where each of the memory tier's entries is: an open-addressing hash table (linear probing,
/// at most half full) from a key's hash to the entry's place in the tier's array.
///
/// The tier's own table rather than a `Dictionary` because a dictionary copies each key it probes
/// out of its storage (retaining and releasing the key's strings) and hashes through `Hashable`.
/// Here a bucket holds the hash and the place; a probe compares hashes, and only on an equal hash
/// asks the caller whether the entry at that place is the one it wants, so the caller compares the
/// stored key where it lies, and a lookup can be made from a key's parts without building the key.
///
/// Removal shifts the following buckets back (no tombstones), so probes stay short after any
/// number of removals.
struct MemoryTierIndex {
    /// A hash and its entry's place; `place == -1` marks an empty bucket.
    private struct Bucket {
        var hash: Int
        var place: Int

        static let empty = Bucket(hash: 0, place: -1)
    }

    private var buckets: [Bucket]
    /// `buckets.count - 1`; the count is a power of two.
    private var mask: Int
    /// Places held.
    private(set) var count = 0

    init() {
        buckets = Array(repeating: .empty, count: 16)
        mask = 15
    }

    /// The bucket and place of the entry with `hash` for which `matches(place)` is true.
    @inline(__always)
    func find(hash: Int, where matches: (Int) -> Bool) -> (bucket: Int, place: Int)? {
        buckets.withUnsafeBufferPointer { buckets in
            var bucket = hash & mask
            while true {
                let candidate = buckets[bucket]
                if candidate.place < 0 { return nil }
                if candidate.hash == hash, matches(candidate.place) { return (bucket, candidate.place) }
                bucket = (bucket &+ 1) & mask
            }
        }
    }

    /// Records `place` under `hash`; the caller knows no entry with an equal key is held.
    mutating func insert(hash: Int, place: Int) {
        if (count + 1) * 2 > buckets.count { grow() }
        var bucket = hash & mask
        while buckets[bucket].place >= 0 { bucket = (bucket &+ 1) & mask }
        buckets[bucket] = Bucket(hash: hash, place: place)
        count += 1
    }

    /// Empties `bucket` and moves back the buckets after it that probing would no longer reach.
    mutating func remove(bucket removed: Int) {
        var hole = removed
        var next = (hole &+ 1) & mask
        while buckets[next].place >= 0 {
            let home = buckets[next].hash & mask
            // The bucket at `next` may fill the hole unless its home lies after the hole, up to
            // `next` (cyclically): probing from there would never pass the hole.
            let staysPut = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !staysPut {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next &+ 1) & mask
        }
        buckets[hole] = .empty
        count -= 1
    }

    /// Notes that the entry with `hash` at place `old` now lies at place `new`.
    mutating func move(hash: Int, from old: Int, to new: Int) {
        var bucket = hash & mask
        while buckets[bucket].place != old {
            precondition(buckets[bucket].place >= 0, "memory tier index: place \(old) is not indexed")
            bucket = (bucket &+ 1) & mask
        }
        buckets[bucket].place = new
    }

    mutating func removeAll() {
        self = MemoryTierIndex()
    }

    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: .empty, count: old.count * 2)
        mask = buckets.count - 1
        for entry in old where entry.place >= 0 {
            var bucket = entry.hash & mask
            while buckets[bucket].place >= 0 { bucket = (bucket &+ 1) & mask }
            buckets[bucket] = entry
        }
    }
}
