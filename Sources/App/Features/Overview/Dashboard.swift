import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// The library at a glance. Titles and copies are counted from the kept counts (`title_counts`,
/// `copy_counts`), the same at any size; open loans off their index.
enum DashboardQuery {
    static func load(libraryID: UUID, now: Date, on db: any Database) async throws -> Dashboard {
        let sql = db.sql
        let row = try await sql.raw("""
            SELECT
              (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM title_counts WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: false)) AS titles,
              (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM title_counts WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: true)) AS wishlist,
              (SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM copy_counts WHERE library_id = \(bind: libraryID) AND circulating = \(bind: true)) AS copies,
              (SELECT COUNT(*) FROM loans WHERE \(LibraryNumber.rows(of: "loans", libraryID)) AND returned_at IS NULL) AS on_loan,
              (SELECT COUNT(*) FROM loans WHERE \(LibraryNumber.rows(of: "loans", libraryID)) AND returned_at IS NULL AND due_at < \(bind: now)) AS overdue,
              (SELECT COUNT(*) FROM members WHERE library_id = \(bind: libraryID) AND archived_at IS NULL) AS members
            """).first()
        func n(_ column: String) throws -> Int { try row?.decode(column: column, as: Int.self) ?? 0 }
        let recent = try await ActivityLog.list(libraryID: libraryID, type: nil, limit: 10, offset: 0, on: db)
        let lastAdded = try await Title.query(on: db).inLibrary(libraryID).filter(\.$wishlist == false)
            .sort(\.$createdAt, .descending).limit(6).all()
        return Dashboard(titles: try n("titles"), copies: try n("copies"), onLoan: try n("on_loan"), overdue: try n("overdue"),
                         members: try n("members"), wishlist: try n("wishlist"), recentActivity: recent,
                         lastAdded: try await TitleQuery.summaries(lastAdded.map(TitleQuery.SummaryRow.init), now: now, on: db))
    }
}
