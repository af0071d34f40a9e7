import Foundation
import Plot
import ShelfmarkCore

extension BackupsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let lib = libraryID
        return Layout.page(page, title: t(.nightlyBackups)) {
            H.el(.h1, [:]) { EscapedText(t(.nightlyBackups)) }
            H.el(.p, [.class: "muted"]) { EscapedText(t(.backupsIntro)) }
            for warning in status.warnings {
                H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(Self.warning(warning, t)) }
            }
            if let failure = status.lastFailure {
                H.el(.p, [.class: "flash error"]) { EscapedText(t.format(.backupLastFailure, t.dateTime(failure.at), failure.failure.message(t))) }
            }
            H.el(.section, [.class: "card"]) {
                if let last = status.lastGood {
                    H.el(.p, [:]) {
                        H.el(.time, [.datetime: last.formatted(.iso8601)]) { EscapedText(t.format(.backupLastGood, t.dateTime(last))) }
                    }
                } else {
                    H.el(.p, [:]) { EscapedText(t(.backupNone)) }
                }
                H.el(.dl, [.class: "facts"]) {
                    Components.fact(t(.backupFolderLabel), status.folder)
                    if let space = status.space {
                        Components.fact(t(.backupFreeSpaceLabel), t.format(.backupFreeSpace, t.bytes(space.free), t.bytes(space.total)))
                    }
                }
                if status.running {
                    H.el(.p, [.class: "hint", .role: "status"]) { EscapedText(t(.backupRunning)) }
                } else {
                    H.form(WebRoute.backupsRun(library: lib).path, csrf: page.csrf) { H.button(t(.backupNow)) }
                }
            }
            H.el(.section, [.class: "card"]) {
                H.el(.h2, [:]) { EscapedText(t(.drillHeading)) }
                if let drill = status.lastDrill {
                    if let report = drill.report {
                        H.el(.p, [:]) {
                            EscapedText(t.format(.drillLastGood, t.dateTime(drill.at), t.number(report.libraries), t.number(report.titles), t.number(report.loans)))
                        }
                    } else {
                        H.el(.p, [.class: "error-text"]) { EscapedText(t.format(.drillFailed, t.dateTime(drill.at), (drill.failure ?? .interrupted).message(t))) }
                    }
                } else {
                    H.el(.p, [.class: "muted"]) { EscapedText(t(.drillNone)) }
                }
                if !status.backups.isEmpty {
                    H.form(WebRoute.backupsDrill(library: lib).path, csrf: page.csrf) { H.button(t(.drillNow), kind: "quiet") }
                }
            }
            if status.postgres, let command = pgDumpCommand {
                H.el(.section, [.class: "card"]) {
                    H.el(.p, [:]) { EscapedText(t(.backupPostgresNote)) }
                    H.el(.pre, [.class: "command"]) { H.el(.code, [:]) { EscapedText(command) } }
                }
            }
            H.el(.h2, [:]) { EscapedText(t(.backupSettingsHeading)) }
            H.form(WebRoute.backups(library: lib).path, csrf: page.csrf) {
                H.field(t(.backupFolderLabel), name: "folder", value: value("folder"), hint: t.format(.backupFolderHint, defaultFolder),
                        error: error("folder"), extra: [.autocomplete: "off", .autocapitalize: "off"])
                H.field(t(.backupHourLabel), name: "hour", type: "number", value: value("hour"), hint: t.format(.backupHourHint, TimeZone.current.identifier),
                        required: true, error: error("hour"),
                        extra: [.min: String(NightlyBackupSettings.hourRange.lowerBound), .max: String(NightlyBackupSettings.hourRange.upperBound), .inputmode: "numeric"])
                H.field(t(.keepDailyLabel), name: "keepDaily", type: "number", value: value("keepDaily"), required: true, error: error("keepDaily"),
                        extra: [.min: String(BackupRotation.dailyRange.lowerBound), .max: String(BackupRotation.dailyRange.upperBound), .inputmode: "numeric"])
                H.field(t(.keepWeeklyLabel), name: "keepWeekly", type: "number", value: value("keepWeekly"), required: true, error: error("keepWeekly"),
                        extra: [.min: String(BackupRotation.weeklyRange.lowerBound), .max: String(BackupRotation.weeklyRange.upperBound), .inputmode: "numeric"])
                H.field(t(.keepMonthlyLabel), name: "keepMonthly", type: "number", value: value("keepMonthly"), required: true, error: error("keepMonthly"),
                        extra: [.min: String(BackupRotation.monthlyRange.lowerBound), .max: String(BackupRotation.monthlyRange.upperBound), .inputmode: "numeric"])
                H.button(t(.save))
            }
            H.el(.h2, [:]) { EscapedText(t(.backupListHeading)) }
            if status.backups.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.backupNone)) }
            } else {
                H.el(.ul, [.class: "runs"]) {
                    for backup in status.backups {
                        H.el(.li, [:]) {
                            H.el(.span, [.class: "name"]) {
                                H.el(.time, [.datetime: backup.madeAt.formatted(.iso8601)]) { EscapedText(t.dateTime(backup.madeAt)) }
                            }
                            H.el(.span, [.class: "authors"]) {
                                EscapedText(t.format(.backupEntry, t.number(backup.manifest.libraries.count),
                                                     t.number(backup.manifest.libraries.reduce(0) { $0 + $1.titles }), t.bytes(backup.bytes)))
                            }
                            H.el(.span, [.class: "hint"]) { EscapedText(backup.name) }
                        }
                    }
                }
            }
        }
    }

    static func warning(_ warning: NightlyBackups.Warning, _ t: Strings) -> String {
        switch warning {
        case .noRecentBackup: t(.backupWarnStale)
        case .folderNearlyFull: t(.backupWarnFull)
        case .folderUnusable: t(.backupWarnUnusable)
        }
    }
}
