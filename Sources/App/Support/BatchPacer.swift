import FluentKit

/// How many rows a long job (a restore, its swap) writes per transaction: as many as take about
/// `target`, learnt from the batches it has written. On SQLite a transaction holds the one writer, so
/// its length is what another library's write may wait; a fixed number of rows was 50 ms for one
/// table and 500 ms for another (a title's move touches its indexes, counts, search and sync entries).
struct BatchPacer: Sendable {
    static let target: Duration = .milliseconds(10)
    static let bounds: ClosedRange<Int> = 10...500

    /// The rows of the next batch.
    private(set) var rows: Int

    init(start: Int = 100) { rows = min(max(start, Self.bounds.lowerBound), Self.bounds.upperBound) }

    /// The last batch wrote `count` rows in `elapsed` (inside its transaction): the next one is as many
    /// rows as fit the target at that pace, down at once when slow, up at most twice as many when fast.
    mutating func wrote(_ count: Int, in elapsed: Duration) {
        guard count > 0 else { return }
        let fit = elapsed > .zero ? Int((Double(count) * (Self.target / elapsed)).rounded(.down)) : Self.bounds.upperBound
        rows = min(max(min(fit, rows * 2), Self.bounds.lowerBound), Self.bounds.upperBound)
    }
}

extension WriteGate {
    /// One batch of a long job: `body`, given how many rows to take (`pacer.rows`), in a transaction of
    /// its own; it answers its result and how many rows it wrote, and the pacer learns from the time it
    /// took inside the transaction (not the wait for the writer before it).
    func batch<T: Sendable>(_ pacer: inout BatchPacer, on db: any Database,
                            _ body: @escaping @Sendable (any Database, Int) async throws -> (T, rows: Int)) async throws -> T {
        let limit = pacer.rows
        let (result, rows, took) = try await transaction(on: db) { db in
            let began = ContinuousClock.now
            let (result, rows) = try await body(db, limit)
            return (result, rows, ContinuousClock.now - began)
        }
        pacer.wrote(rows, in: took)
        return result
    }
}
