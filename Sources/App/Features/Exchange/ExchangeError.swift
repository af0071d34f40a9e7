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
    /// A file of reading levels past its bounds.
    case levelListTooLarge(maxMB: Int)

    /// Every refusal of a file is about the file (422), but for an unknown format.
    var described: Described {
        func file(_ code: String = "invalid", details: [String: String]? = nil, _ message: @escaping @Sendable (Strings) -> String) -> Described {
            .init(.invalid, code, field: "file", details: details, message)
        }
        switch self {
        case .emptyFile: return file { $0(.errFileEmpty) }
        case .noMARCRecords: return file { $0(.errNoMARCRecords) }
        case .marcXMLUnreadable(let detail): return file(details: detail.map { ["detail": $0] }) { $0(.errMARCXMLUnreadable) }
        case .notJSON: return file { $0(.errNotJSON) }
        case .notLibraryThingJSON: return file { $0(.errNotLibraryThingJSON) }
        case .csv(.unterminatedQuote(let line, let column)): return file { $0.format(.errCSVUnterminated, $0.number(line), $0.number(column)) }
        case .csv(.strayQuote(let line, let column)): return file { $0.format(.errCSVStrayQuote, $0.number(line), $0.number(column)) }
        case .unknownFormat:
            let formats = ImportFormat.allCases.map(\.rawValue).joined(separator: ", ")
            return .init(.invalid, "invalid", field: "format", details: ["formats": formats]) { $0.format(.errUnknownFormat, formats) }
        case .missingColumns(let columns):
            return file(details: ["columns": columns.joined(separator: ", ")]) { t in
                t.format(.errMissingColumns, columns.map { t.lang == .de ? "„\($0)“" : "“\($0)”" }.joined(separator: ", "))
            }
        case .cannotOpen(let path): return file { $0.format(.errCannotOpen, path) }
        case .notABackup: return file { $0(.errNotABackup) }
        case .newerBackup(let version): return file { $0.format(.errNewerBackup, $0.number(version)) }
        case .backupTooLarge(let rows, let max): return file { $0.format(.errBackupTooLarge, $0.number(rows), $0.number(max)) }
        case .unreadableBackup(let at): return file("bad_backup", details: at.map { ["at": $0] }) { t in at.map { t.format(.errBadBackupAt, $0) } ?? t(.errBadBackup) }
        case .backupSettingOutOfRange(let field, let value): return file { $0.format(.errBackupSetting, $0.label(field), $0.number(value)) }
        case .backupLibraryName: return file { $0(.errBackupLibraryName) }
        case .backupCover(let number, let problem): return file { $0.format(.errNotRestored, problem.message($0, number: number)) }
        case .backupChosenAsImport: return file { $0(.errBackupAsImport) }
        case .memberListTooLarge(let mb): return file { $0.format(.errMemberListTooLarge, $0.number(mb), $0.number(MemberExchange.maxRows)) }
        case .levelListTooLarge(let mb): return file { $0.format(.errLevelListTooLarge, $0.number(mb), $0.number(ReadingLevels.maxRows)) }
        }
    }
}
