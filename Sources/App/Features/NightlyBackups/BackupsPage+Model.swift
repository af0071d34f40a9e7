import Foundation
import ShelfmarkCore
import Vapor

/// The nightly backups page (the administrator's): where the backups go and when, how many are
/// kept, how they stand (the last good one, warnings, the backups in the folder), a backup now.
struct BackupsPage: Sendable {
    var libraryID: UUID
    var status: NightlyBackups.Status
    var defaultFolder: String
    var pgDumpCommand: String?
    /// The form as typed when it was refused, with the refusal.
    var typed: [String: String] = [:]
    var refusal: (field: String?, message: String)?

    static let fields: Set<String> = ["folder", "hour", "keepDaily", "keepWeekly", "keepMonthly"]

    static func make(library: LibraryContext, app: Application) async throws -> BackupsPage {
        BackupsPage(libraryID: library.libraryID, status: try await NightlyBackups.status(app: app),
                    defaultFolder: NightlyBackupSettings.defaultFolder(app.storageConfig), pgDumpCommand: NightlyBackups.pgDumpCommand(app.storageConfig))
    }

    /// What a field shows: as typed after a refusal, else the setting.
    func value(_ field: String) -> String {
        if let typed = typed[field] { return typed }
        let s = status.settings
        switch field {
        case "folder": return s.folder ?? ""
        case "hour": return String(s.hour)
        case "keepDaily": return String(s.rotation.daily)
        case "keepWeekly": return String(s.rotation.weekly)
        case "keepMonthly": return String(s.rotation.monthly)
        default: return ""
        }
    }

    func error(_ field: String) -> String? {
        guard let refusal, refusal.field == field else { return nil }
        return refusal.message
    }
}
