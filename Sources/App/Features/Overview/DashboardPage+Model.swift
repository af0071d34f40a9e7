import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging

/// The overview: counts that link to their lists, the books added last, recent activity.
struct DashboardPage: Sendable {
    var libraryID: UUID
    var dashboard: Dashboard
    /// Overdue at a glance: the ten most overdue members, and messages that failed in the last day.
    var overdueGroups: [OverdueMemberDTO] = []
    var mayRemind = false
    /// The counts' reports are linked for the staff who may read reports.
    var mayReport = false
    var failedMessages = 0
    var withoutEmail = 0
    /// Where a phone on the same network opens this overview, when the server serves HTTPS itself.
    var phone: PhoneAccess?
    /// For the installation's administrator: the last good nightly backup and what is wrong with them.
    var backups: BackupGlance?
    /// The server's disk is full: pages read, nothing saves (`StorageHealth`).
    var diskFull = false

    struct BackupGlance: Sendable {
        var lastGood: Date?
        var warnings: [NightlyBackups.Warning]
    }

    struct PhoneAccess: Sendable {
        var url: String
        var qrSVG: String
        var fingerprint: String
        var offersAuthority: Bool

        static func make(_ state: HTTPSState?, library: UUID) -> PhoneAccess? {
            guard let state, let base = state.lanURLs.first else { return nil }
            let url = base + WebRoute.dashboard(library: library).path
            guard let qr = try? BarcodeRenderer.render(.qr, url) else { return nil }
            return PhoneAccess(url: url, qrSVG: qr.svg, fingerprint: state.fingerprint, offersAuthority: state.authorityDER != nil)
        }
    }

    static func make(library: LibraryContext, now: Date, on db: any Database) async throws -> DashboardPage {
        let dashboard = try await DashboardQuery.load(libraryID: library.libraryID, now: now, on: db)
        let groups = dashboard.overdue == 0 ? [] : try await OverdueGlance.members(library: library.libraryID, policy: library.policy, now: now, limit: 10, on: db)
        let failed = library.role.may(.manageMembers)
            ? try await Mailer.failedLastDay(library: library.libraryID, now: now, on: db) : 0
        return DashboardPage(libraryID: library.libraryID, dashboard: dashboard, overdueGroups: groups, mayRemind: library.role.may(.circulate),
                             mayReport: library.role.may(.manageMembers),
                             failedMessages: failed,
                             withoutEmail: groups.isEmpty ? 0 : try await OverdueGlance.withoutEmail(library: library.libraryID, now: now, on: db))
    }
}
