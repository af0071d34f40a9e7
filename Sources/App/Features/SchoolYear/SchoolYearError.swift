import Foundation
import ShelfmarkCore

enum SchoolYearError: DomainError, Equatable {
    /// An upload past its bound (a zip's unpacked files too).
    case rosterTooLarge(maxMB: Int)
    /// A zip that cannot be opened.
    case unreadableZip
    /// Files that are neither a OneRoster bundle nor one CSV of students.
    case notARoster(files: [String])
    /// The roster as a whole cannot be read (a file or columns missing …).
    case roster(RosterError)
    case runNotFound
    /// The run was applied already (by this request's twin, or earlier).
    case runAlreadyApplied(at: Date)
    /// The preview is older than a day, or its roster is gone: read the file again.
    case runExpired
    /// A mapping that names a field the student list does not have.
    case unknownField(String)
    /// A rollover that moves no class.
    case rolloverEmpty
    case tooManyClasses(max: Int)
    /// A rollover's class that no member is in.
    case noSuchClass(String, field: String)
    case classTwice(String, field: String)
    case rolloverNotFound
    case rolloverUndone
    /// Only the newest rollover is undone.
    case rolloverNotLatest
    case erasureNeedsReason
    /// An erasure emptied the backups taken before rollovers (they held the member).
    case rolloverBackupErased
    /// Erasure waits until their books are back and nothing is owed.
    case erasureLoansOut(count: Int)
    case erasureOwes(amount: Int, currency: String)

    var described: Described {
        switch self {
        case .rosterTooLarge(let max):
            .init(.tooLarge, "too_large", field: "file") { $0.format(.errRosterTooLarge, $0.number(max)) }
        case .unreadableZip:
            .init(.invalid, "invalid", field: "file") { $0(.errRosterZip) }
        case .notARoster(let files):
            .init(.invalid, "not_a_roster", field: "file", details: ["files": files.prefix(20).joined(separator: ", ")]) { $0(.errNotARoster) }
        case .roster(let error):
            switch error {
            case .missingFile(let file):
                .init(.invalid, "missing_file", field: "file", details: ["file": file]) { $0.format(.errRosterMissingFile, file) }
            case .missingColumns(let file, let columns):
                .init(.invalid, "missing_columns", field: "file", details: ["file": file, "columns": columns.joined(separator: ", ")]) {
                    $0.format(.errRosterMissingColumns, file, columns.map { "“\($0)”" }.joined(separator: ", "))
                }
            case .tooManyPeople(let max):
                .init(.tooLarge, "too_many", field: "file") { $0.format(.errRosterTooMany, $0.number(max)) }
            case .unreadable(let file, let detail):
                .init(.invalid, "unreadable", field: "file", details: ["file": file, "detail": detail]) { $0.format(.errRosterUnreadable, file, detail) }
            case .unsupportedVersion(let version):
                .init(.invalid, "unsupported_version", field: "file", details: ["version": version]) { $0.format(.errRosterVersion, version) }
            }
        case .runNotFound:
            .init(.notFound, "not_found") { $0(.errRosterRunNotFound) }
        case .runAlreadyApplied(let at):
            .init(.conflict, "already_applied", details: ["appliedAt": at.formatted(.iso8601)]) { $0(.errRosterApplied) }
        case .runExpired:
            .init(.conflict, "preview_expired") { $0(.errRosterExpired) }
        case .rolloverEmpty:
            .init(.invalid, "invalid", field: "classes") { $0(.errRolloverEmpty) }
        case .tooManyClasses(let max):
            .init(.invalid, "invalid", field: "classes") { $0.format(.errRolloverTooMany, $0.number(max)) }
        case .noSuchClass(let name, let field):
            .init(.notFound, "not_found", field: field, details: ["class": name]) { $0.format(.errRolloverNoClass, name) }
        case .classTwice(let name, let field):
            .init(.conflict, "class_twice", field: field, details: ["class": name]) { $0.format(.errRolloverTwice, name) }
        case .rolloverNotFound:
            .init(.notFound, "not_found") { $0(.errRolloverNotFound) }
        case .rolloverUndone:
            .init(.conflict, "already_undone") { $0(.errRolloverUndone) }
        case .rolloverNotLatest:
            .init(.conflict, "not_latest") { $0(.errRolloverNotLatest) }
        case .rolloverBackupErased:
            .init(.gone, "backup_erased") { $0(.errRolloverBackupErased) }
        case .erasureNeedsReason:
            .init(.invalid, "invalid", field: "reason") { $0(.errErasureReason) }
        case .erasureLoansOut(let count):
            .init(.conflict, "member_has_loans", details: ["count": String(count)]) { $0.format(.errErasureLoans, $0(.loansOut, count)) }
        case .erasureOwes(let amount, let currency):
            .init(.conflict, "fines_owed", details: ["owed": String(amount), "currency": currency]) { $0.format(.errErasureOwes, $0.money(amount, currency)) }
        case .unknownField(let field):
            .init(.invalid, "invalid", field: "mapping", details: ["field": field]) { $0.format(.errRosterField, field) }
        }
    }
}
