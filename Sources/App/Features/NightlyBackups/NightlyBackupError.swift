import ShelfmarkCore
import Vapor

enum NightlyBackupError: DomainError, Equatable {
    /// The folder is not a full path, is a system folder, does not exist or cannot be written.
    case folderNotAbsolute
    case folderForbidden
    case folderMissing
    case folderNotWritable
    /// The folder's disk has less room than the backup needs (bytes).
    case notEnoughRoom(need: Int64, free: Int64)
    /// Another backup is being made into the folder.
    case alreadyRunning
    /// A file written did not read back as it was written.
    case verificationFailed(file: String)
    /// A restore drill with no backup to restore.
    case nothingToDrill
    /// A restore drill brought back another number of rows than the backup wrote.
    case drillMismatch(library: String, table: String, written: Int, restored: Int)

    /// The rows a drill counts, as the overview names them.
    static func tableName(_ table: String) -> L {
        switch table {
        case "titles": .titlesStat
        case "copies": .copiesStat
        case "members": .membersStat
        default: .loansTitle
        }
    }

    var described: Described {
        switch self {
        case .folderNotAbsolute: .init(.invalid, "backup_folder_not_absolute", field: "folder") { $0(.errBackupFolderNotAbsolute) }
        case .folderForbidden: .init(.conflict, "backup_folder_forbidden", field: "folder") { $0(.errBackupFolderForbidden) }
        case .folderMissing: .init(.conflict, "backup_folder_missing", field: "folder") { $0(.errBackupFolderMissing) }
        case .folderNotWritable: .init(.conflict, "backup_folder_not_writable", field: "folder") { $0(.errBackupFolderNotWritable) }
        case .notEnoughRoom(let need, let free):
            .init(.conflict, "backup_no_room", details: ["need": String(need), "free": String(free)]) {
                $0.format(.errBackupNoRoom, $0.bytes(need), $0.bytes(free))
            }
        case .alreadyRunning: .init(.conflict, "backup_running") { $0(.errBackupRunning) }
        case .verificationFailed(let file): .init(.conflict, "backup_unverified", details: ["file": file]) { $0.format(.errBackupUnverified, file) }
        case .nothingToDrill: .init(.conflict, "no_backup_to_drill") { $0(.errNothingToDrill) }
        case .drillMismatch(let library, let table, let written, let restored):
            .init(.conflict, "drill_mismatch", details: ["library": library, "table": table, "written": String(written), "restored": String(restored)]) {
                $0.format(.errDrillMismatch, library, $0(Self.tableName(table)), $0.number(restored), $0.number(written))
            }
        }
    }
}
