import Foundation
import ShelfmarkCore

/// What an activity entry says beyond its type and names, as values: stored as JSON next to the
/// English `info` (which the API and exports keep), and said by a page in the reader's language
/// with its numbers and dates localised.
enum ActivityDetail: Codable, Sendable, Equatable {
    case copies(Int)
    case copiesAdded(Int)
    case copiesChanged(from: Int, to: Int)
    case lent(barcode: String, due: Date)
    case overdue(days: Int)
    case renewed(due: Date)
    case returnedOnMemberDeletion
    case staffAdded(username: String, role: Role)
    case roleChanged(username: String, role: Role)
    case settings(loanDays: Int, renewals: Int)
    case renamed(from: String, to: String)
    case imported(titles: Int, copies: Int, format: ImportFormat)
    case favorite(Bool)
    case membersImported(Int)
    case merged(from: String, into: String)
    case passwordReset(username: String)
    /// A fine charged, paid or waived (in minor units), and why it was waived.
    case money(amount: Int, currency: String, reason: String?)
    case suspendedUntil(Date)
    /// A roster sync: members added, changed and archived.
    case rosterSynced(added: Int, changed: Int, left: Int)
    /// One of many books changed at once (or that change undone).
    case bulkChange(action: BulkAction, value: String?, undone: Bool)
    /// A category's call-number scheme set (no prefix: none), and how many of its books were given a call number.
    case callNumbers(category: String, prefix: String?, dewey: Bool, given: Int)

    /// The English text stored in `info`.
    var english: String {
        func day(_ date: Date) -> String { date.formatted(.iso8601.year().month().day()) }
        func copies(_ n: Int) -> String { "\(n) \(n == 1 ? "copy" : "copies")" }
        switch self {
        case .copies(let n): return copies(n)
        case .copiesAdded(let n): return "+" + copies(n)
        case .copiesChanged(let from, let to): return "copies \(from) → \(to)"
        case .lent(let barcode, let due): return "copy \(barcode), due \(day(due))"
        case .overdue(let days): return "\(days) \(days == 1 ? "day" : "days") overdue"
        case .renewed(let due): return "due \(day(due))"
        case .returnedOnMemberDeletion: return "returned on member deletion"
        case .staffAdded(let username, let role): return "\(username) as \(role.rawValue)"
        case .roleChanged(let username, let role): return "\(username) is now \(role.rawValue)"
        case .settings(let days, let renewals): return "loan period \(days) days, \(renewals) renewals"
        case .renamed(let from, let to): return "\(from) → \(to)"
        case .imported(let titles, let copies, let format): return "\(titles) titles, \(copies) copies from \(format.displayName)"
        case .favorite(let on): return on ? "marked as a favorite" : "no longer a favorite"
        case .membersImported(let n): return "\(n) \(n == 1 ? "member" : "members") from a member list"
        case .merged(let from, let into): return "\(from) merged into \(into)"
        case .passwordReset(let username): return "new password for \(username)"
        case .money(let amount, let currency, let reason):
            return "\(currency) \(MoneyText.plain(amount))" + (reason.map { ": \($0)" } ?? "")
        case .suspendedUntil(let date): return "no loans until \(day(date))"
        case .rosterSynced(let added, let changed, let left): return "\(added) added, \(changed) changed, \(left) archived"
        case .bulkChange(let action, let value, let undone):
            return (undone ? "undone: " : "with many at once: ") + action.rawValue.replacingOccurrences(of: "_", with: " ") + (value.map { " “\($0)”" } ?? "")
        case .callNumbers(let category, let prefix, let dewey, let given):
            return "\(category): call numbers \(prefix.map { dewey ? "\($0) and the Dewey class" : $0 } ?? "none"); books given one: \(given)"
        }
    }

    var json: String? { (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } }

    init?(json: String?) {
        guard let json, let detail = try? JSONDecoder().decode(ActivityDetail.self, from: Data(json.utf8)) else { return nil }
        self = detail
    }
}

extension Strings {
    func message(_ detail: ActivityDetail) -> String {
        switch detail {
        case .copies(let n): self(.copiesCount, n)
        case .copiesAdded(let n): "+" + self(.copiesCount, n)
        case .copiesChanged(let from, let to): format(.actCopiesChanged, number(from), number(to))
        case .lent(let barcode, let due): format(.actLent, barcode, date(due))
        case .overdue(let days): self(.daysOverdue, days)
        case .renewed(let due): format(.dueOn, date(due))
        case .returnedOnMemberDeletion: self(.actReturnedOnDeletion)
        case .staffAdded(let username, let role): format(.actStaffAs, username, self.role(role))
        case .roleChanged(let username, let role): format(.actStaffNow, username, self.role(role))
        case .settings(let days, let renewals): format(.actSettings, self(.days, days), number(renewals))
        case .renamed(let from, let to): "\(from) → \(to)"
        case .imported(let titles, let copies, let source): format(.actImported, self(.titles, titles), self(.copiesCount, copies), name(source))
        case .favorite(let on): self(on ? .actFavoriteOn : .actFavoriteOff)
        case .membersImported(let n): format(.actMembersImported, self(.membersCount, n))
        case .merged(let from, let into): format(.actMerged, from, into)
        case .passwordReset(let username): format(.actPasswordReset, username)
        case .money(let amount, let currency, let reason): money(amount, currency) + (reason.map { ": \($0)" } ?? "")
        case .suspendedUntil(let date): format(.actSuspendedUntil, self.date(date))
        case .rosterSynced(let added, let changed, let left): format(.actRosterSyncedDetail, number(added), number(changed), number(left))
        case .bulkChange(let action, let value, let undone): undone ? format(.bulkUndoneDetail, bulkChange(action, value)) : bulkChange(action, value)
        case .callNumbers(let category, let prefix, let dewey, let given):
            format(.actCategoryCallNumbers, category, prefix.map { dewey ? format(.categorySchemeDewey, $0) : $0 } ?? self(.categorySchemeNone), number(given))
        }
    }
}
