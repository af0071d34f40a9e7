import Foundation
import Plot
import ShelfmarkCore

extension ExchangePage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t
        let (lib, progress, libraryName, mayAdminister) = (libraryID, enrichment, libraryName, mayAdminister)
        return Layout.page(page, title: t(.importExport)) {
            H.el(.h1, [:]) { EscapedText(t(.importExport)) }
            H.form(WebRoute.exchange(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data", .class: "card"]) {
                H.field(t(.importFile), name: "file", type: "file", hint: t(.importFileHint), required: true,
                        extra: [.accept: ".csv,.tsv,.txt,.json,.mrc,.marc,.dat,.xml,text/csv,text/plain,application/json,application/marc,application/xml"])
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-format"]) { EscapedText(t(.formatField)) }
                    H.el(.select, [.id: "f-format", .name: "format"]) {
                        H.el(.option, [.value: ""]) { EscapedText(t(.detectFormat)) }
                        for format in ImportFormat.allCases { H.el(.option, [.value: format.rawValue]) { EscapedText(t.name(format)) } }
                    }
                }
                H.el(.fieldset, [.class: "quick-picks"]) {
                    H.el(.legend, [:]) { EscapedText(t(.isbn)) }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "radio", .name: "existing", .value: "skip", .checked: ""])
                        EscapedText(" " + t(.existingSkip))
                    }
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "radio", .name: "existing", .value: "copies"])
                        EscapedText(" " + t(.existingCopies))
                    }
                }
                H.field(t(.importIntoNew), name: "newLibrary", hint: t(.importIntoNewHint))
                H.button(t(.importButton), attrs: [.dataBusy: t(.importing)])
            }
            if progress.pending + progress.running > 0 {
                H.el(.p, [.class: "card", .id: "enrichment-progress", .ariaLive: "polite", .dataRefresh: WebRoute.exchange(library: lib).path]) {
                    EscapedText(t.format(.enrichmentProgress, t(.titles, progress.pending + progress.running), t.number(progress.done)))
                }
            } else if progress.done > 0 {
                H.el(.p, [.class: "muted", .id: "enrichment-progress"]) { EscapedText(t.format(.enrichmentDone, t.number(progress.done))) }
            }
            H.el(.h2, [:]) { EscapedText(t(.levelsImportTitle)) }
            if let report = levelsReport {
                H.el(.section, [.class: "card", .role: "status"]) {
                    H.el(.p, [:]) { EscapedText(t.format(.levelsImported, t.number(report.titlesUpdated), t.number(report.rowsRead))) }
                    if !report.failed.isEmpty || !report.skipped.isEmpty {
                        H.el(.ul, [.class: "loans"]) {
                            for note in report.failed.prefix(500) {
                                H.el(.li, [.class: "overdue"]) { EscapedText(t.format(.lineLabel, t.number(note.line)) + ": " + t.message(note)) }
                            }
                            for note in report.skipped.prefix(500) {
                                H.el(.li, [:]) { EscapedText(t.format(.lineLabel, t.number(note.line)) + ": " + t.message(note)) }
                            }
                        }
                    }
                }
            }
            H.form(WebRoute.levelsImport(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data", .class: "card"]) {
                H.field(t(.levelsFile), name: "file", type: "file", hint: t(.levelsImportHint), required: true, id: "f-levels-file",
                        extra: [.accept: ".csv,.tsv,.txt,text/csv,text/plain"])
                H.button(t(.setLevels))
            }
            H.el(.h2, [:]) { EscapedText(t(.exportHeading)) }
            H.el(.ul, [.class: "menu"]) {
                H.el(.li, [:]) { H.link(t(.exportCatalog), APILink.export(library: lib, format: "csv").path) }
                H.el(.li, [:]) { H.link(t(.exportCatalogCovers), APILink.export(library: lib, format: "csv").path(query: [("covers", "true")])) }
                H.el(.li, [:]) { H.link(t(.exportWishlist), APILink.export(library: lib, format: "wishlist-csv").path) }
                H.el(.li, [:]) { H.link(t(.exportJSON), APILink.export(library: lib, format: "json").path) }
                H.el(.li, [:]) { H.link(t(.exportMARC), APILink.export(library: lib, format: "marc").path) }
                H.el(.li, [:]) { H.link(t(.exportMARCXML), APILink.export(library: lib, format: "marcxml").path) }
            }
            if mayAdminister {
                H.el(.h2, [:]) { EscapedText(t(.backupHeading)) }
                H.el(.p, [.class: "muted"]) { EscapedText(t(.backupHint)) }
                H.el(.ul, [.class: "menu"]) {
                    H.el(.li, [:]) { H.link(t(.backupDownload), APILink.backup(library: lib).path) }
                }
                H.form(WebRoute.restore(library: lib).path, csrf: page.csrf, attrs: [.enctype: "multipart/form-data", .class: "card"]) {
                    H.field(t(.restoreFile), name: "backup", type: "file", required: true, extra: [.accept: ".json,application/json"])
                    H.field(t(.restoreAsNew), name: "name", hint: t(.restoreAsNewHint))
                    H.el(.label, [.class: "pick"]) {
                        H.void(.input, [.type: "checkbox", .name: "replace", .value: "true"])
                        EscapedText(" " + t.format(.restoreReplace, libraryName))
                    }
                    H.button(t(.restoreButton), kind: "quiet", attrs: [.dataBusy: t(.restoring)])
                }
                H.el(.section, [.class: "danger"]) {
                    H.el(.h2, [:]) { EscapedText(t(.eraseHeading)) }
                    H.form(WebRoute.erase(library: lib).path, csrf: page.csrf) {
                        H.el(.label, [.class: "pick"]) {
                            H.void(.input, [.type: "checkbox", .name: "confirm", .value: "true", .required: ""])
                            EscapedText(" " + t.format(.eraseConfirm, libraryName))
                        }
                        H.button(t(.eraseButton), kind: "danger")
                    }
                }
            }
        }
    }
}
