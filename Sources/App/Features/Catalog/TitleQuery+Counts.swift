import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The catalog's counts read from `title_counts`, which triggers keep as titles are written
/// (`AddTitleListKeys`): totals, A–Z counts, favourites and where a letter starts cost the
/// same at any size of catalog.
extension TitleQuery {
    /// The condition on `title_counts` that gives the same titles as `f` without a section, when the
    /// kept counts can (nothing filtered but favourites); nil otherwise.
    static func keptFilter(_ f: Filters) -> SQLQueryString? {
        guard !(f.onLoan || f.overdue || f.available || f.addedSince != nil || f.categoryID != nil || f.minRating != nil || f.readStatus != nil || f.location != nil || f.series != nil
                || f.readingLevel != nil || f.levelScheme != nil) else { return nil }
        return f.favorites ? " AND favorite = \(bind: true)" : ""
    }

    /// A sum of kept counts (`AddTitleListKeys`): a few dozen rows, at any size of catalog.
    static func kept(_ sql: any SQLDatabase, libraryID: UUID, wishlist: Bool, extra: SQLQueryString) async throws -> Int {
        try await count(sql, "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: wishlist)" + extra)
    }

    /// Where section `letter` starts in A–Z order, from the kept counts: the titles sorting before
    /// "a" (digits first), then the letters before it; "#" titles that sort after "z" come last.
    /// Nil when the section is empty.
    static func keptPosition(ofSection letter: String, _ kept: SQLQueryString, wishlist: Bool, libraryID: UUID,
                                     on sql: any SQLDatabase) async throws -> Int? {
        let rows = try await sql.raw("SELECT section, early, CAST(SUM(n) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID)"
                                     + " AND wishlist = \(bind: wishlist)" + kept + " GROUP BY section, early HAVING SUM(n) > 0").all()
        struct Bucket { var section: String; var early: Bool; var n: Int }
        let buckets = try rows.map { Bucket(section: try $0.decode(column: "section", as: String.self),
                                           early: try $0.decode(column: "early", as: Bool.self), n: try $0.decode(column: "n", as: Int.self)) }
        guard buckets.contains(where: { $0.section == letter }) else { return nil }
        let early = buckets.filter(\.early).reduce(0) { $0 + $1.n }
        if letter == "#" {
            // The first "#" title: one that sorts before "a" if there is any, else after "z".
            return buckets.contains { $0.section == "#" && $0.early } ? 0 : buckets.filter { !$0.early && $0.section != "#" }.reduce(early) { $0 + $1.n }
        }
        return buckets.filter { !$0.early && $0.section != "#" && $0.section < letter }.reduce(early) { $0 + $1.n }
    }
}
