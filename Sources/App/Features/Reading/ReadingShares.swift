import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// A reader's year in books, shared by a secret link: who has the address sees the figures
/// (books, pages, months, top authors and categories, longest and shortest book) and the reader's
/// display name — never reviews, notes, photos or what else they read. Stopping ends the link.
enum ReadingShares {
    /// Makes the year's secret link and returns its token, which is stored only as its hash (shown to
    /// the reader this once). A year already shared gets a new link; the old one stops working.
    static func share(year: Int, userID: UUID, in scope: Scope) async throws -> String {
        _ = try Check.range(year, ReadingLog.goalYears, field: "year")
        let token = Credential.newLinkToken()
        try await scope.gate.transaction(on: scope.db) { db in
            let share = try await ReadingShare.query(on: db).filter(\.$library.$id == scope.libraryID).filter(\.$userID == userID)
                .filter(\.$year == year).first() ?? ReadingShare()
            share.$library.id = scope.libraryID
            share.userID = userID
            share.year = year
            share.tokenHash = Credential.hash(token)
            share.createdAt = scope.now
            try await share.save(on: db)
        }
        return token
    }

    static func stop(year: Int, userID: UUID, in scope: Scope) async throws {
        try await scope.gate.transaction(on: scope.db) { db in
            try await ReadingShare.query(on: db).filter(\.$library.$id == scope.libraryID).filter(\.$userID == userID)
                .filter(\.$year == year).delete()
        }
    }

    /// When the reader's link for this year was made, or nil when the year is not shared.
    static func sharedSince(year: Int, userID: UUID, libraryID: UUID, on db: any Database) async throws -> Date? {
        try await ReadingShare.query(on: db).filter(\.$library.$id == libraryID).filter(\.$userID == userID).filter(\.$year == year).first()?.createdAt
    }

    /// The shared summary behind a token, or nil (an unknown or stopped link).
    static func summary(token: String, app: Application, now: Date) async throws -> (name: String, stats: ReadingStatsDTO)? {
        guard Credential.isLinkToken(token) else { return nil }
        guard let share = try await ReadingShare.query(on: app.db).filter(\.$tokenHash == Credential.hash(token)).first(),
              let library = try await Library.find(share.$library.id, on: app.db),
              let user = try await User.find(share.userID, on: app.db) else { return nil }
        let context = LibraryContext(libraryID: try library.requireID(), name: library.name,
                                     policy: LoanPolicy(loanPeriodDays: library.loanPeriodDays, maxRenewals: library.maxRenewals,
                                                        timeZone: Library.zone(library.timeZone)),
                                     role: .viewer, user: AuthenticatedUser(id: share.userID, username: user.username, displayName: user.displayName))
        var stats = try await ReadingLog.stats(year: share.year, reader: .user(share.userID),
                                               in: Scope(library: context, now: now, gate: app.writeGate, db: app.db))
        stats.current = []   // what they are reading now is not part of a year's summary
        stats.goal = nil
        return (user.displayName.isEmpty ? user.username : user.displayName, stats)
    }
}

extension Data {
    func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
