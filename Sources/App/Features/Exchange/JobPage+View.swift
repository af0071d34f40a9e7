import Foundation
import Plot
import ShelfmarkCore

extension JobPage {
    /// While the job runs the `#job` section names itself in `data-refresh`: app.js fetches the page
    /// again and swaps the section in; without JavaScript the whole page reloads (`PageContext.refresh`).
    func render(_ page: PageContext) -> HTML {
        var page = page
        page.refresh = isRunning
        let t = page.t
        let here = WebRoute.job(library: libraryID, job: jobID).path
        return Layout.page(page, title: t(.importExport)) {
            H.el(.h1, [:]) { EscapedText(t(.importExport)) }
            switch state {
            case .importing(let progress):
                H.el(.section, [.class: "card", .id: "job", .ariaLive: "polite", .dataRefresh: here]) {
                    H.el(.h2, [:]) { EscapedText(t(.importRunning)) }
                    H.el(.progress, [.ariaLabel: t(.importRunning)]) { EmptyComponent() }
                    H.el(.p, [:]) {
                        EscapedText(t.format(.importProgress, t.number(progress.rowsRead), t.number(progress.titlesCreated), t.number(progress.copiesAdded)))
                    }
                }
            case .restoring:
                H.el(.section, [.class: "card", .id: "job", .ariaLive: "polite", .dataRefresh: here]) {
                    H.el(.h2, [:]) { EscapedText(t(.restoring)) }
                    H.el(.progress, [.ariaLabel: t(.restoring)]) { EmptyComponent() }
                }
            case .imported(let report, let made):
                H.el(.section, [.class: "card", .id: "job", .ariaLive: "polite"]) {
                    Self.report(report, t: t)
                    if let made {
                        H.el(.p, [:]) { H.link(t.format(.openLibrary, made.name), WebRoute.catalog(library: made.id).path, cls: "button primary") }
                    }
                }
            case .restored(let library, let leftOut):
                H.el(.section, [.class: "card", .id: "job", .role: "status"]) {
                    H.el(.p, [:]) { EscapedText(t.format(.restored, library.name)) }
                    if let leftOut, !leftOut.isEmpty { H.el(.p, [:]) { EscapedText(Self.leftOutText(leftOut, t: t)) } }
                    H.el(.p, [:]) { H.link(t.format(.openLibrary, library.name), WebRoute.catalog(library: library.id).path, cls: "button primary") }
                }
            case .failed(let kind, let message):
                H.el(.section, [.class: "card", .id: "job", .role: "alert"]) {
                    H.el(.h2, [:]) { EscapedText(t(kind == .restore ? .restoreFailed : .importFailed)) }
                    H.el(.p, [.class: "flash error"]) { EscapedText(message) }
                }
            }
            H.el(.p, [:]) { H.link(t(.importAnother), WebRoute.exchange(library: libraryID).path) }
        }
    }

    /// An import's report: what it brought in, and each row it skipped or could not import, by line.
    static func report(_ report: ImportReport, t: Strings) -> any Component {
        H.el(.div, [:]) {
            H.el(.h2, [:]) { EscapedText(t(.importDone) + " · " + t.formatName(report.format)) }
            H.el(.dl, [.class: "facts"]) {
                Components.fact(t(.rowsRead), t.number(report.rowsRead))
                Components.fact(t(.titlesCreated), t.number(report.titlesCreated))
                Components.fact(t(.copiesAddedLabel), t.number(report.copiesAdded))
                Components.fact(t(.skippedRows), t.number(report.skipped.count))
                Components.fact(t(.failedRows), t.number(report.failed.count))
            }
            if let stopped = report.stop.map({ t.message($0) }) ?? report.stoppedAt { H.el(.p, [.class: "warning"]) { EscapedText(t.format(.stoppedAt, stopped)) } }
            if !report.failed.isEmpty || !report.skipped.isEmpty {
                H.el(.ul, [.class: "loans"]) {
                    for note in report.failed {
                        H.el(.li, [.class: "overdue"]) { EscapedText(t.format(report.unit == .record ? .recordLabel : .lineLabel, String(note.line)) + ": " + t.message(note)) }
                    }
                    for note in report.skipped {
                        H.el(.li, [:]) { EscapedText(t.format(report.unit == .record ? .recordLabel : .lineLabel, String(note.line)) + ": " + t.message(note)) }
                    }
                }
            }
            if !report.warnings.isEmpty {
                H.el(.h3, [:]) { EscapedText(t(.warningsHeading)) }
                H.el(.ul, [.class: "loans"]) {
                    for note in report.warnings.prefix(1_000) {
                        H.el(.li, [:]) { EscapedText(t.format(report.unit == .record ? .recordLabel : .lineLabel, t.number(note.line)) + ": " + t.message(note)) }
                    }
                }
            }
        }
    }
}
