import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// Reports over the API: each as JSON, CSV (one table or all) and PDF, for the staff who manage
/// members (the readers' report names members).
enum ReportsController {
    static func register(_ api: APIRoutes) {
        let lib = api.grouped("libraries", ":libraryID")
        let period: [RouteDoc.Param] = [
            .oneOf("period", ReportPeriod.Preset.allCases.map(\.rawValue),
                   "The period (default `school-year`: from the 1st of August last passed); `custom` with `from` and `to`."),
            .init(name: "from", description: "The first day counted (a custom period of at most ten years; alone: up to today).", format: "date"),
            .init(name: "to", description: "The last day counted (a custom period; alone: from the start of its school year).", format: "date"),
            .oneOf("group", ReportPeriod.Grouping.allCases.map(\.rawValue), "Counted by month (default) or week (at most 160 weeks)."),
        ]
        let weeding: [RouteDoc.Param] = [
            .init(name: "notLentYears", kind: .integer, description: "Copies not lent for this many years (1–20, default 3).",
                  schema: Rule.range(ReportOptions.notLentRange)),
            .init(name: "olderThanYears", kind: .integer,
                  description: "… published (or, the year unknown, acquired) at least this many years ago (0–100, default 10).",
                  schema: Rule.range(ReportOptions.olderRange)),
        ]
        let filterDocs: [ReportFilter: RouteDoc.Param] = [
            .grade: .init(name: "class", description: "Only loans to this class (as it was when lent).", schema: Rule.optionalText(100)),
            .category: .init(name: "category", description: "Only books of this category.", format: "uuid"),
            .shelf: .init(name: "shelf", description: "Only copies on this shelf.", schema: Rule.optionalText(200)),
            .level: .init(name: "level", description: "Only books of this reading level.", schema: Rule.optionalText(100)),
            .collection: .init(name: "collection", description: "Only the books of this smart collection (at most 10,000; 404 when there is none).",
                               format: "uuid"),
        ]
        for kind in ReportKind.allCases {
            let query = (kind.hasPeriod ? period : weeding) + ReportFilter.allCases.filter(kind.filters.contains).compactMap { filterDocs[$0] }
            let about = kind.apiSummary
            lib.on(.GET, .report(library: .pattern, kind: kind, format: nil), doc: .init(
                summary: about + " (JSON: each table with its columns, rows and totals; staff who manage members)", tag: "Reports",
                query: query, response: ReportDTO.self), use: { try await json(req: $0, kind: kind) })
            lib.on(.GET, .report(library: .pattern, kind: kind, format: "csv"), doc: .init(
                summary: about + " as CSV: every table under its title, or one (`table`: its key)", tag: "Reports",
                query: query + [.oneOf("table", kind.tableKeys, "Only this table (its `key`).")]),
                use: { try await csv(req: $0, kind: kind) })
            lib.on(.GET, .report(library: .pattern, kind: kind, format: "pdf"), doc: .init(
                summary: about + " as a PDF: the period and filters, then each table with its totals, \"page\" numbers at the foot", tag: "Reports",
                query: query + [.init(name: "paper", description: "A4 or US Letter (default `a4`).", schema: ["enum": ["a4", "letter"]])]),
                use: { try await pdf(req: $0, kind: kind) })
        }
    }

    static func report(_ req: Request, _ kind: ReportKind) async throws -> (report: ReportDTO, ctx: LibraryContext, options: ReportOptions) {
        let ctx = try await req.library(.read)
        var options = try ReportOptions.read(req)
        try await ClassTeachers.limit(ctx, kind: kind, options: &options, on: req.db)
        return (try await Reports.make(kind, options, library: ctx, now: req.now, t: req.t, on: req.db), ctx, options)
    }

    @Sendable static func json(req: Request, kind: ReportKind) async throws -> ReportDTO {
        try await report(req, kind).report
    }

    @Sendable static func csv(req: Request, kind: ReportKind) async throws -> Response {
        let table = req.query[String.self, at: "table"]?.cleanedInput
        let (report, ctx, _) = try await report(req, kind)
        if let table, !table.isEmpty, !report.tables.contains(where: { $0.key == table }) {
            throw RequestError.oneOf(field: "table", allowed: report.tables.map(\.key), got: table)
        }
        let data = ReportOutput.csv(report, only: table.flatMap { $0.isEmpty ? nil : $0 }, calendar: ctx.policy.calendar, t: req.t)
        return ExchangeController.download(data, type: "text/csv; charset=utf-8", name: "\(kind.rawValue)\(table.map { "-" + $0 } ?? "").csv")
    }

    @Sendable static func pdf(req: Request, kind: ReportKind) async throws -> Response {
        let paper = try req.paperQuery()
        let (report, ctx, options) = try await report(req, kind)
        let filters = try await Reports.filterTexts(options, kind: kind, library: ctx.libraryID, t: req.t, on: req.db)
        let (t, now) = (req.t, req.now)
        let header = ctx.name + " · " + req.t.date(req.now)
        let bytes = try await req.application.threadPool.runIfActive {
            try ReportOutput.pdf(report, header: header, filters: filters, now: now, paper: paper, t: t)
        }
        return PrintController.pdfResponse(bytes, name: kind.rawValue, count: report.tables.reduce(0) { $0 + $1.rows.count })
    }
}

extension ReportKind {
    var apiSummary: String {
        switch self {
        case .circulation: "Circulation: loans, returns, renewals and overdue loans per month or week; loans by class, category and shelf; holds placed, filled and days to fill"
        case .collection: "The collection now: titles and copies by category, shelf, reading level and decade; copies added per month or week"
        case .weeding: "The weeding list: copies on the shelves not lent for years and old, by shelf; copies lost or damaged this year"
        case .readers: "Readers: loans and borrowers by class (and the share of the class that borrowed), by member, by reading level; pages logged"
        case .money: "Money: fines charged, paid and waived per month or week, and what is owed now"
        }
    }
}
