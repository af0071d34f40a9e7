import Fluent
import FluentSQL
import Foundation
import ShelfmarkCore
import SQLKit

/// G6: the library at a glance.
enum DashboardQuery {
    static func load(libraryID: UUID, now: Date, on db: any Database) async throws -> Dashboard {
        let sql = db.sql
        let row = try await sql.raw("""
            SELECT
              (SELECT COUNT(*) FROM titles WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: false)) AS titles,
              (SELECT COUNT(*) FROM titles WHERE library_id = \(bind: libraryID) AND wishlist = \(bind: true)) AS wishlist,
              (SELECT COUNT(*) FROM copies WHERE library_id = \(bind: libraryID) AND status IN (\(bind: CopyStatus.available.rawValue), \(bind: CopyStatus.onLoan.rawValue))) AS copies,
              (SELECT COUNT(*) FROM loans WHERE library_id = \(bind: libraryID) AND returned_at IS NULL) AS on_loan,
              (SELECT COUNT(*) FROM loans WHERE library_id = \(bind: libraryID) AND returned_at IS NULL AND due_at < \(bind: now)) AS overdue,
              (SELECT COUNT(*) FROM members WHERE library_id = \(bind: libraryID)) AS members
            """).first()
        func n(_ column: String) throws -> Int { try row?.decode(column: column, as: Int.self) ?? 0 }
        let recent = try await ActivityLog.list(libraryID: libraryID, type: nil, limit: 10, offset: 0, on: db)
        let lastAdded = try await Title.query(on: db).filter(\.$library.$id == libraryID).filter(\.$wishlist == false)
            .sort(\.$createdAt, .descending).limit(6).all()
        return Dashboard(titles: try n("titles"), copies: try n("copies"), onLoan: try n("on_loan"), overdue: try n("overdue"),
                         members: try n("members"), wishlist: try n("wishlist"), recentActivity: recent,
                         lastAdded: try await TitleQuery.summaries(lastAdded.map(TitleQuery.SummaryRow.init), now: now, on: db))
    }
}
