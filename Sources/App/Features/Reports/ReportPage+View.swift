import Foundation
import Plot
import ShelfmarkCore

extension ReportsPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t, lib = libraryID
        return Layout.page(page, title: t(.reportsTitle)) {
            H.el(.h1, [:]) { EscapedText(t(.reportsTitle)) }
            H.el(.ul, [.class: "menu"]) {
                for kind in ReportKind.allCases {
                    H.el(.li, [:]) {
                        H.el(.a, [.href: WebRoute.report(library: lib, kind: kind).path]) {
                            H.el(.strong, [:]) { EscapedText(t(kind.titleKey)) }
                            H.el(.span, [.class: "hint"]) { EscapedText(" · " + t(kind.summaryKey)) }
                        }
                    }
                }
            }
            savedSection(page)
        }
    }

    private func savedSection(_ page: PageContext) -> any Component {
        let t = page.t
        return H.el(.section, [.ariaLabelledby: "saved-reports"]) {
            H.el(.h2, [.id: "saved-reports"]) { EscapedText(t(.savedReportsHeading)) }
            if saved.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.savedReportsEmpty)) }
            } else {
                H.el(.ul, [.class: "saved-reports"]) {
                    for report in saved { savedItem(report, page) }
                }
                if !isOwner { H.el(.p, [.class: "hint"]) { EscapedText(t(.savedReportOwnersMail)) } }
            }
        }
    }

    private func savedItem(_ report: SavedReportDTO, _ page: PageContext) -> any Component {
        let t = page.t, lib = libraryID
        let key = report.id.uuidString.lowercased()
        let options = (try? ReportOptions.read(query: report.options)) ?? ReportOptions()
        return H.el(.li, [.id: "saved-" + key]) {
            H.el(.a, [.href: WebRoute.report(library: lib, kind: report.kind).path(query: options.query)]) {
                H.el(.strong, [:]) { EscapedText(report.name) }
                H.el(.span, [.class: "hint"]) { EscapedText(" · " + t(report.kind.titleKey)) }
            }
            if report.schedule != .none, let next = report.nextMailing {
                H.el(.p, [.class: "hint"]) {
                    EscapedText(t.format(.savedReportMailedTo, report.recipients.joined(separator: ", "), t.date(next)))
                }
            }
            if let last = report.lastSentAt { H.el(.p, [.class: "hint"]) { EscapedText(t.format(.savedReportLastSent, t.date(last))) } }
            H.el(.details, [:]) {
                H.el(.summary, [:]) { EscapedText(t(.savedReportChange)) }
                H.form(WebRoute.savedReport(library: lib, saved: report.id).path, csrf: page.csrf) {
                    H.field(t(.savedReportName), name: "name", value: report.name, required: true, id: "name-" + key,
                            extra: [.maxlength: String(SavedReports.maxName)])
                    if isOwner {
                        H.el(.div, [.class: "field"]) {
                            H.el(.label, [.for: "schedule-" + key]) { EscapedText(t(.savedReportSchedule)) }
                            H.el(.select, [.id: "schedule-" + key, .name: "schedule"]) {
                                for (value, name) in [(SavedReportSchedule.none, L.savedReportNotMailed), (.monthly, .savedReportMonthly),
                                                      (.termly, .savedReportTermly)] {
                                    H.el(.option, [.value: value.rawValue, .selected: report.schedule == value ? "" : nil]) { EscapedText(t(name)) }
                                }
                            }
                        }
                        H.el(.div, [.class: "field"]) {
                            H.el(.label, [.for: "recipients-" + key]) { EscapedText(t(.savedReportRecipients)) }
                            H.el(.textarea, [.id: "recipients-" + key, .name: "recipients", .rows: "3", .autocomplete: "off",
                                             .inputmode: "email"]) { EscapedText(report.recipients.joined(separator: "\n")) }
                        }
                    }
                    H.button(t(.save))
                }
                H.el(.div, [.class: "actions"]) {
                    if isOwner, !report.recipients.isEmpty {
                        H.form(WebRoute.savedReportSend(library: lib, saved: report.id).path, csrf: page.csrf) {
                            H.button(t(.savedReportSendNow), kind: "quiet")
                        }
                    }
                    if isOwner || report.schedule == .none {
                        H.form(WebRoute.savedReportDelete(library: lib, saved: report.id).path, csrf: page.csrf) {
                            H.button(t(.savedReportDelete), kind: "quiet danger")
                        }
                    }
                }
            }
        }
    }
}

extension ReportPage {
    func render(_ page: PageContext) -> HTML {
        let t = page.t, lib = libraryID, kind = kind, options = options, form = form
        return Layout.page(page, title: t(kind.titleKey)) {
            H.el(.nav, [.ariaLabel: t(.reportsTitle)]) {
                H.el(.ul, [.class: "report-kinds"]) {
                    for other in teacherClasses == nil ? ReportKind.allCases : [.readers] {
                        H.el(.li, [:]) {
                            H.el(.a, [.href: WebRoute.report(library: lib, kind: other).path(query: Self.carried(options, to: other)),
                                      .ariaCurrent: other == kind ? "page" : nil]) { EscapedText(t(other.titleKey)) }
                        }
                    }
                }
            }
            H.el(.h1, [:]) { EscapedText(t(kind.titleKey)) }
            H.el(.p, [.class: "hint"]) { EscapedText(t(kind.summaryKey)) }
            if let general = form.general { H.el(.p, [.class: "flash error", .role: "alert"]) { EscapedText(general) } }
            optionsForm(t)
            if let report {
                H.el(.p, [.class: "count"]) {
                    EscapedText(([ReportOutput.periodText(report, now: now, t: t)] + filterTexts).joined(separator: " · "))
                }
                H.el(.p, [.class: "downloads"]) {
                    H.link(t(.downloadPDF), APILink.report(library: lib, kind: kind, format: "pdf").path(query: options.query), cls: "button primary")
                    EscapedText(" ")
                    H.link(t(.reportDownloadCSV), APILink.report(library: lib, kind: kind, format: "csv").path(query: options.query), cls: "button quiet")
                }
                for (i, table) in report.tables.enumerated() { tableSection(table, index: i, report: report, t: t) }
                if teacherClasses == nil { saveForm(page) }
            }
        }
    }

    /// Saves the report as shown (its kind, period and filters) under a name.
    private func saveForm(_ page: PageContext) -> any Component {
        let t = page.t
        return H.el(.section, [.class: "report-save", .ariaLabelledby: "save-report"]) {
            H.el(.h2, [.id: "save-report"]) { EscapedText(t(.savedReportSaveHeading)) }
            H.form(WebRoute.savedReports(library: libraryID).path, csrf: page.csrf) {
                H.void(.input, [.type: "hidden", .name: "kind", .value: kind.rawValue])
                H.void(.input, [.type: "hidden", .name: "options", .value: options.queryString])
                H.field(t(.savedReportName), name: "name", hint: t(.savedReportSaveHint), required: true,
                        extra: [.maxlength: String(SavedReports.maxName), .autocomplete: "off"])
                H.button(t(.save))
            }
        }
    }

    /// The period and filters a link to another report keeps (the ones that report takes).
    static func carried(_ o: ReportOptions, to other: ReportKind) -> [(String, String)] {
        let keep = Set(["period", "group", "from", "to"]).union(other.filters.map { $0 == .grade ? "class" : $0.rawValue })
        return o.query.filter { keep.contains($0.0) }
    }

    private func optionsForm(_ t: Strings) -> any Component {
        let (o, form, kind) = (options, form, kind)
        func select(_ name: String, _ label: String, _ choices: [(String, String)], selected: String?, any: String?) -> any Component {
            H.el(.div, [.class: form.errors[name] == nil ? "field" : "field invalid"]) {
                H.el(.label, [.for: "f-" + name]) { EscapedText(label) }
                H.el(.select, [.id: "f-" + name, .name: name, .ariaInvalid: form.errors[name] == nil ? nil : "true",
                               .ariaDescribedby: form.errors[name] == nil ? nil : "f-\(name)-error"]) {
                    if let any { H.el(.option, [.value: ""]) { EscapedText(any) } }
                    for (value, text) in choices { H.el(.option, [.value: value, .selected: value == selected ? "" : nil]) { EscapedText(text) } }
                }
                if let error = form.errors[name] { H.el(.p, [.class: "field-error", .id: "f-\(name)-error"]) { EscapedText(error) } }
            }
        }
        let presets: [(ReportPeriod.Preset, L)] = [(.schoolYear, .reportSchoolYear), (.lastSchoolYear, .reportLastSchoolYear),
                                                   (.thisTerm, .reportThisTerm), (.lastTerm, .reportLastTerm), (.thisMonth, .reportThisMonth),
                                                   (.lastMonth, .reportLastMonth), (.last12Months, .reportLast12Months), (.thisYear, .reportThisYear),
                                                   (.custom, .reportCustomRange)]
        return H.el(.form, [.method: "get", .action: WebRoute.report(library: libraryID, kind: kind).path, .class: "report-options"]) {
            if kind.hasPeriod {
                H.el(.div, [.class: "field"]) {
                    H.el(.label, [.for: "f-period"]) { EscapedText(t(.reportPeriod)) }
                    H.el(.select, [.id: "f-period", .name: "period"]) {
                        for (preset, name) in presets {
                            H.el(.option, [.value: preset.rawValue, .selected: o.preset == preset ? "" : nil]) { EscapedText(t(name)) }
                        }
                    }
                }
                H.field(t(.reportFrom), name: "from", type: "date", value: form["from"] ?? o.from, hint: nil, error: form.errors["from"])
                H.field(t(.reportTo), name: "to", type: "date", value: form["to"] ?? o.to, hint: nil, error: form.errors["to"])
                H.el(.div, [.class: form.errors["group"] == nil ? "field" : "field invalid"]) {
                    H.el(.label, [.for: "f-group"]) { EscapedText(t(.reportCountBy)) }
                    H.el(.select, [.id: "f-group", .name: "group", .ariaInvalid: form.errors["group"] == nil ? nil : "true",
                                   .ariaDescribedby: form.errors["group"] == nil ? nil : "f-group-error"]) {
                        H.el(.option, [.value: "month", .selected: o.grouping == .month ? "" : nil]) { EscapedText(t(.reportByMonth)) }
                        H.el(.option, [.value: "week", .selected: o.grouping == .week ? "" : nil]) { EscapedText(t(.reportByWeek)) }
                    }
                    if let error = form.errors["group"] { H.el(.p, [.class: "field-error", .id: "f-group-error"]) { EscapedText(error) } }
                }
            } else {
                H.field(t(.reportNotLentYears), name: "notLentYears", type: "number", value: String(o.notLentYears), error: form.errors["notLentYears"],
                        extra: [.min: "1", .max: "20", .inputmode: "numeric"])
                H.field(t(.reportOlderThanYears), name: "olderThanYears", type: "number", value: String(o.olderThanYears),
                        error: form.errors["olderThanYears"], extra: [.min: "0", .max: "100", .inputmode: "numeric"])
            }
            if let mine = teacherClasses {
                select("class", t(.sortClass), mine.map { ($0, $0) }, selected: o.grade, any: nil)
            } else if kind.filters.contains(.grade) {
                select("class", t(.sortClass), classes.map { ($0, $0) } + (o.grade.map { g in classes.contains(g) ? [] : [(g, g)] } ?? []),
                       selected: o.grade, any: t(.reportAllClasses))
            }
            if kind.filters.contains(.category) {
                select("category", t(.reportCategory), categories.map { ($0.id.uuidString, $0.name) }, selected: o.category?.uuidString, any: t(.reportAllCategories))
            }
            if kind.filters.contains(.shelf) {
                select("shelf", t(.location), shelves.map { ($0, $0) }, selected: o.shelf, any: t(.allShelves))
            }
            if kind.filters.contains(.level), !levels.isEmpty {
                select("level", t(.readingLevelField), levels.map { ($0, $0) }, selected: o.level, any: t(.reportAllLevels))
            }
            if kind.filters.contains(.collection), !collections.isEmpty {
                select("collection", t(.collectionsTitle), collections.map { ($0.id.uuidString, $0.name) }, selected: o.collection?.uuidString,
                       any: t(.reportAllBooks))
            }
            H.button(t(.reportShow), kind: "quiet")
        }
    }

    private func tableSection(_ table: ReportTableDTO, index: Int, report: ReportDTO, t: Strings) -> any Component {
        let (lib, kind, options, currency) = (libraryID, kind, options, report.currency)
        let id = "r\(index)-" + table.key
        let numeric = table.columns.indices.filter { table.columns[$0].kind != .text }
        let first = numeric.first
        let format: (Double, ReportColumnKind) -> String = { n, k in ReportOutput.text(.number(n), k, currency: currency, t: t) }
        return H.el(.section, [.class: "report-table", .ariaLabelledby: id]) {
            H.el(.h2, [.id: id]) { EscapedText(table.title) }
            if let first, !table.rows.isEmpty, table.rows.contains(where: { ($0[first].number ?? 0) > 0 }) {
                switch table.chart {
                case .columns:
                    let series = numeric.prefix(2).filter { [.count, .money].contains(table.columns[$0].kind) }
                        .map { c in (name: table.columns[c].title, values: table.rows.map { $0[c].number ?? 0 }) }
                    Charts.columns(id: id + "-chart", title: table.title, labels: table.rows.map { Self.short($0[0].text ?? "") },
                                   series: series, format: { format($0, table.columns[first].kind) })
                case .bars:
                    Charts.hbars(id: id + "-chart", title: table.title, labels: table.rows.map { $0[0].text ?? "" },
                                 values: table.rows.map { $0[first].number ?? 0 }, format: { format($0, table.columns[first].kind) })
                case .none:
                    EmptyComponent()
                }
            }
            if table.rows.isEmpty {
                H.el(.p, [.class: "empty"]) { EscapedText(t(.reportNothingCounted)) }
            } else {
                // A wide table scrolls sideways on a phone: the keyboard reaches it too.
                H.el(.div, [.class: "table-scroll", .tabindex: "0", .role: "region", .ariaLabel: table.title]) {
                    H.el(.table, [.class: "data"]) {
                        H.el(.thead, [:]) {
                            H.el(.tr, [:]) {
                                for column in table.columns { H.el(.th, [.scope: "col"]) { EscapedText(column.title) } }
                            }
                        }
                        H.el(.tbody, [:]) {
                            for row in table.rows.prefix(Reports.shownRows) {
                                H.el(.tr, [:]) {
                                    for (i, cell) in row.enumerated() {
                                        let text = ReportOutput.text(cell, table.columns[i].kind, currency: currency, t: t)
                                        if i == 0 {
                                            H.el(.th, [.scope: "row"]) { EscapedText(text) }
                                        } else {
                                            H.el(.td, [.class: table.columns[i].kind == .text ? "text" : nil]) { EscapedText(text) }
                                        }
                                    }
                                }
                            }
                        }
                        if let totals = table.totals {
                            H.el(.tfoot, [:]) {
                                H.el(.tr, [:]) {
                                    H.el(.th, [.scope: "row"]) { EscapedText(t(.reportTotal)) }
                                    for (i, cell) in totals.enumerated().dropFirst() {
                                        H.el(.td, [:]) { EscapedText(cell.number == nil ? "" : ReportOutput.text(cell, table.columns[i].kind, currency: currency, t: t)) }
                                    }
                                }
                            }
                        }
                    }
                }
                if table.rows.count > Reports.shownRows {
                    H.el(.p, [.class: "hint"]) {
                        EscapedText(t.format(.reportShownOf, t.number(Reports.shownRows), t.number(table.rows.count)))
                    }
                }
            }
            if let note = table.note { H.el(.p, [.class: "hint"]) { EscapedText(note) } }
            H.el(.p, [.class: "downloads"]) {
                H.link(t.format(.reportTableCSV, table.title),
                       APILink.report(library: lib, kind: kind, format: "csv").path(query: options.query + [("table", table.key)]))
            }
        }
    }

    /// A month's or a day's label under a column, without its year ("Nov 2026" → "Nov", "27 Nov 2026" → "27 Nov").
    static func short(_ label: String) -> String {
        let kept = label.split(separator: " ").filter { word in
            let digits = word.trimmingCharacters(in: CharacterSet(charactersIn: ",."))
            return !(digits.count == 4 && digits.allSatisfy(\.isNumber))
        }
        let text = kept.joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: ", "))
        return text.isEmpty ? label : text
    }
}
