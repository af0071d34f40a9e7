import Foundation
import NIOConcurrencyHelpers
import ShelfmarkCore

/// The last statistics of each reader and year (today's), with the version of the reads they were
/// worked out from (see `ReadingLog.stats`). Bounded: the oldest half goes when it is full.
final class StatsCache: Sendable {
    struct Key: Hashable, Sendable { var library: UUID; var reader: String; var year: Int; var day: Int }
    static let shared = StatsCache()
    static let capacity = 512

    private let entries = NIOLockedValueBox<[Key: (version: String, stats: ReadingStatsDTO, used: UInt64)]>([:])
    private let clock = NIOLockedValueBox<UInt64>(0)

    func get(_ key: Key, version: String) -> ReadingStatsDTO? {
        let tick = clock.withLockedValue { $0 += 1; return $0 }
        return entries.withLockedValue { all in
            guard let entry = all[key], entry.version == version else { return nil }
            all[key]?.used = tick
            return entry.stats
        }
    }

    /// A write in this process: the reader's figures are worked out again (the version catches writes
    /// in other processes; this catches two in the same millisecond).
    func invalidate(library: UUID, reader: String) {
        entries.withLockedValue { all in
            for key in all.keys where key.library == library && key.reader == reader { all.removeValue(forKey: key) }
        }
    }

    func set(_ key: Key, version: String, _ stats: ReadingStatsDTO) {
        let tick = clock.withLockedValue { $0 += 1; return $0 }
        entries.withLockedValue { all in
            if all.count >= Self.capacity {
                for old in all.sorted(by: { $0.value.used < $1.value.used }).prefix(Self.capacity / 2) { all.removeValue(forKey: old.key) }
            }
            all[key] = (version, stats, tick)
        }
    }
}
