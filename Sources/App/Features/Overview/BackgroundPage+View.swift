import Foundation
import Plot
import ShelfmarkCore

extension BackgroundPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        return Layout.page(page, title: t(.backgroundWork)) {
            H.el(.h1, [:]) { EscapedText(t(.backgroundWork)) }
            H.el(.p, [.class: "muted"]) { EscapedText(t(.backgroundIntro)) }
            H.el(.h2, [:]) { EscapedText(t(.scheduledWork)) }
            H.el(.ul, [.class: "runs"]) {
                for job in planned {
                    H.el(.li, [:]) {
                        H.el(.span, [.class: "name"]) { EscapedText(Self.name(job.kind, t)) }
                        H.el(.span, [.class: "authors"]) {
                            EscapedText(Self.when(job.schedule, t) + " · ")
                            H.el(.time, [.datetime: job.next.formatted(.iso8601)]) { EscapedText(t.format(.nextRun, t.dateTime(job.next))) }
                        }
                    }
                }
                H.el(.li, [:]) {
                    H.el(.span, [.class: "name"]) { EscapedText(t(.jobEnrich)) }
                    H.el(.span, [.class: "authors"]) {
                        EscapedText(t.format(.enrichmentQueue, t.number(enrichment.pending + enrichment.running), t.number(enrichment.failed)))
                    }
                }
            }
            H.el(.h2, [:]) { EscapedText(t(.recentRuns)) }
            if runs.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.noRunsYet)) }
            } else {
                H.el(.ul, [.class: "runs"]) {
                    for run in runs {
                        H.el(.li, [.class: "run-" + run.state.rawValue]) {
                            H.el(.span, [.class: "name"]) {
                                if let route = run.page { H.link(Self.name(run.kind, t), route.path) } else { EscapedText(Self.name(run.kind, t)) }
                                EscapedText(" ")
                                H.el(.span, [.class: run.state == .failed ? "badge out" : (run.state == .done ? "badge ok" : "badge")]) {
                                    EscapedText(Self.state(run.state, t))
                                }
                            }
                            H.el(.span, [.class: "authors"]) {
                                H.el(.time, [.datetime: run.started.formatted(.iso8601)]) { EscapedText(t.dateTime(run.started)) }
                                if let removed = run.removed { EscapedText(" · " + t.format(.removedRecords, t.number(removed))) }
                                if let expired = run.expired { EscapedText(" · " + t.format(.expiredHolds, t.number(expired))) }
                                if let roster = run.roster {
                                    EscapedText(" · " + (roster.heldBack == true
                                        ? t.format(.rosterHeldBack, t.number(roster.archived ?? 0))
                                        : t.format(.actRosterSyncedDetail, t.number(roster.added ?? 0), t.number(roster.changed ?? 0),
                                                   t.number(roster.archived ?? 0))))
                                }
                                if let sent = run.sent {
                                    EscapedText(" · " + t.format(.remindersSent, t.number(sent), t.number(run.failedMessages ?? 0), t.number(run.withoutEmail ?? 0)))
                                }
                            }
                            if run.state == .failed {
                                H.el(.span, [.class: "error-text"]) { EscapedText((run.failure ?? .interrupted).message(t)) }
                            }
                        }
                    }
                }
            }
        }
    }

    static func name(_ kind: Jobs.Kind?, _ t: Strings) -> String {
        switch kind {
        case .importFile: t(.jobImport)
        case .restore: t(.jobRestore)
        case .enrich: t(.jobEnrich)
        case .expireHolds: t(.jobExpireHolds)
        case .reminders: t(.jobReminders)
        case .nightlyBackup: t(.nightlyBackups)
        case .backupDrill: t(.drillHeading)
        case .mailReports: t(.jobMailReports)
        case .retention: t(.jobRetention)
        case .rosterFolder: t(.jobRosterFolder)
        case .prune, nil: t(.jobPrune)
        }
    }

    static func state(_ state: Jobs.State, _ t: Strings) -> String {
        switch state {
        case .running: t(.jobRunning)
        case .done: t(.jobDone)
        case .failed: t(.jobFailed)
        }
    }

    /// "Every day at 03:00", "Every Monday at 07:00" (times as the four languages write them, 24-hour).
    static func when(_ schedule: Schedule, _ t: Strings) -> String {
        let time = String(format: "%02d:%02d", schedule.hour, schedule.minute)
        switch schedule.every {
        case .day:
            return t.format(.scheduleDaily, time)
        case .week(let weekday):
            var calendar = Calendar(identifier: .gregorian)
            calendar.locale = t.lang.locale
            return t.format(.scheduleWeekly, calendar.standaloneWeekdaySymbols[weekday - 1], time)
        }
    }
}
