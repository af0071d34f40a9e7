import Fluent
import FluentSQL
import Foundation
import SQLKit

/// The catalog's counts read from `title_counts`, which triggers keep as titles are written
/// (`AddTitleListKeys`): totals, A–Z counts, favourites and where a letter starts cost the
/// same at any size of catalog.
extension TitleQuery {
    /// The condition on `title_counts` that gives the same titles as `f` without a section, when the
    /// kept counts can (nothing filtered but favourites and titles on loan); nil otherwise.
    static func keptFilter(_ f: Filters) -> SQLQueryString? {
        guard !(f.overdue || f.available || f.addedSince != nil || f.categoryID != nil || f.minRating != nil || f.readStatus != nil || f.location != nil || f.series != nil
                || f.readingLevel != nil || f.levelScheme != nil) else { return nil }
        var kept: SQLQueryString = f.favorites ? " AND favorite = \(bind: true)" : ""
        if f.onLoan { kept += " AND on_loan = \(bind: true)" }
        return kept
    }

    /// "Not finished by me" over what the kept counts can count: those counts' condition, and the
    /// filters of the titles to take away from them (the reader's finished ones, a few hundred at most
    /// where the catalog has a hundred thousand). Nil for any other filter.
    static func notFinishedComplement(_ f: Filters) -> (kept: SQLQueryString, finished: Filters)? {
        guard f.readStatus == .unread, f.reader != nil else { return nil }
        var rest = f
        rest.readStatus = nil
        guard let kept = keptFilter(rest) else { return nil }
        rest.readStatus = .finished
        return (kept, rest)
    }

    /// A sum of kept counts (`AddTitleListKeys`): a few dozen rows, at any size of catalog.
    static func kept(_ sql: any SQLDatabase, libraryID: UUID, wishlist: Bool, extra: SQLQueryString) async throws -> Int {
        try await count(sql, "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: wishlist)" + extra)
    }

    /// A part of the A–Z list the kept counts count: a section, and for "#" which side of "a" (before
    /// the letters or after them). In A–Z order the parts follow each other: "#" before "a", A … Z,
    /// "#" after "z", each a run of the order.
    struct KeptPart: Hashable {
        var section: String
        var early: Bool

        /// Sorts the parts in the list's order.
        var rank: String { section == "#" ? (early ? "" : "{") : section }
    }

    /// How many titles each part of the list holds, from a query of `section`, `early` and `n`.
    static func parts(_ query: SQLQueryString, on sql: any SQLDatabase) async throws -> [KeptPart: Int] {
        var out: [KeptPart: Int] = [:]
        for row in try await sql.raw(query).all() {
            out[KeptPart(section: try row.decode(column: "section", as: String.self), early: try row.decode(column: "early", as: Bool.self)),
                default: 0] += try row.decode(column: "n", as: Int.self)
        }
        return out
    }

    /// The kept counts of each part of the list under the kept condition `kept`.
    static func keptParts(_ kept: SQLQueryString, wishlist: Bool, libraryID: UUID, on sql: any SQLDatabase) async throws -> [KeptPart: Int] {
        try await parts("SELECT section, early, CAST(SUM(n) AS BIGINT) AS n FROM title_counts WHERE library_id = \(bind: libraryID)"
                        + " AND wishlist = \(bind: wishlist)" + kept + " GROUP BY section, early HAVING SUM(n) > 0", on: sql)
    }

    /// Where section `letter` starts in A–Z order, from the kept counts: the titles sorting before
    /// "a" (digits first), then the letters before it; "#" titles that sort after "z" come last.
    /// Nil when the section is empty.
    static func keptPosition(ofSection letter: String, _ kept: SQLQueryString, wishlist: Bool, libraryID: UUID,
                             less taken: SQLQueryString? = nil, on sql: any SQLDatabase) async throws -> Int? {
        var counts = try await keptParts(kept, wishlist: wishlist, libraryID: libraryID, on: sql)
        // Titles to take away (a reader's finished ones), in the same parts.
        if let taken {
            for (key, n) in try await parts("SELECT t.section, t.sort_key < 'a' AS early, COUNT(*) AS n FROM titles t WHERE " + taken
                                            + " GROUP BY t.section, t.sort_key < 'a'", on: sql) {
                counts[key, default: 0] -= n
            }
        }
        let kept = counts.filter { $0.value > 0 }
        guard kept.keys.contains(where: { $0.section == letter }) else { return nil }
        let early = kept.filter { $0.key.early }.reduce(0) { $0 + $1.value }
        if letter == "#" {
            // The first "#" title: one that sorts before "a" if there is any, else after "z".
            return kept.keys.contains { $0.section == "#" && $0.early } ? 0
                : kept.filter { !$0.key.early && $0.key.section != "#" }.reduce(early) { $0 + $1.value }
        }
        return kept.filter { !$0.key.early && $0.key.section != "#" && $0.key.section < letter }.reduce(early) { $0 + $1.value }
    }
}
