import ShelfmarkCore
import Vapor

enum ExchangeError: DomainError, Equatable {
    case emptyFile
    case noMARCRecords
    case marcXMLUnreadable(detail: String?)
    case notJSON
    case notLibraryThingJSON
    case csv(CSVReader.Failure)
    case unknownFormat
    case missingColumns([String])
    case cannotOpen(path: String)
    case notABackup
    case newerBackup(version: Int)
    case backupTooLarge(rows: Int, max: Int)
    case unreadableBackup(at: String?)
    case backupSettingOutOfRange(field: String, value: Int)
    case backupLibraryName
    case backupCover(number: Int, CoverProblem)
    case backupChosenAsImport
    case memberListTooLarge(maxMB: Int)

    var refusal: Refusal { .invalid }

    var code: String {
        switch self {
        case .unreadableBackup: "bad_backup"
        default: "invalid"
        }
    }

    var field: String? {
        switch self {
        case .unknownFormat: "format"
        default: "file"
        }
    }

    var details: [String: String]? {
        switch self {
        case .marcXMLUnreadable(let detail): detail.map { ["detail": $0] }
        case .unknownFormat: ["formats": ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")]
        case .missingColumns(let columns): ["columns": columns.joined(separator: ", ")]
        case .unreadableBackup(let at): at.map { ["at": $0] }
        default: nil
        }
    }

    func message(_ t: Strings) -> String {
        func quoted(_ columns: [String]) -> String {
            columns.map { t.lang == .de ? "„\($0)“" : (t.lang == .zh ? "“\($0)”" : "“\($0)”") }.joined(separator: ", ")
        }
        switch self {
        case .emptyFile: return t(.errFileEmpty)
        case .noMARCRecords: return t(.errNoMARCRecords)
        case .marcXMLUnreadable: return t(.errMARCXMLUnreadable)
        case .notJSON: return t(.errNotJSON)
        case .notLibraryThingJSON: return t(.errNotLibraryThingJSON)
        case .csv(.unterminatedQuote(let line, let column)): return t.format(.errCSVUnterminated, t.number(line), t.number(column))
        case .csv(.strayQuote(let line, let column)): return t.format(.errCSVStrayQuote, t.number(line), t.number(column))
        case .unknownFormat: return t.format(.errUnknownFormat, ImportFormat.allCases.map(\.rawValue).joined(separator: ", "))
        case .missingColumns(let columns): return t.format(.errMissingColumns, quoted(columns))
        case .cannotOpen(let path): return t.format(.errCannotOpen, path)
        case .notABackup: return t(.errNotABackup)
        case .newerBackup(let version): return t.format(.errNewerBackup, t.number(version))
        case .backupTooLarge(let rows, let max): return t.format(.errBackupTooLarge, t.number(rows), t.number(max))
        case .unreadableBackup(let at): return at.map { t.format(.errBadBackupAt, $0) } ?? t(.errBadBackup)
        case .backupSettingOutOfRange(let field, let value): return t.format(.errBackupSetting, t.label(field), t.number(value))
        case .backupLibraryName: return t(.errBackupLibraryName)
        case .backupCover(let number, let problem): return t.format(.errNotRestored, problem.message(t, number: number))
        case .backupChosenAsImport: return t(.errBackupAsImport)
        case .memberListTooLarge(let mb): return t.format(.errMemberListTooLarge, t.number(mb), t.number(MemberExchange.maxRows))
        }
    }
}
