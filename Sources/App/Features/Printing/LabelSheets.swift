import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import ShelfmarkPDF
import SQLKit
import Vapor

/// Label sheets for copies: a PDF made on the server for the sheets libraries buy (Avery 5160,
/// L7160, 70 × 37 mm, spine labels), each label with the copy's Code 128 barcode, title, author and
/// shelf, placed by the sheet's published measures — "start at label N" for a sheet already partly
/// used, a printer offset to calibrate. The page on screen shows the same drawing as images.
enum LabelSheets {
    /// At most this many labels in one PDF (a term's new books; 3,000 take a few seconds).
    static let maxLabels = 5_000

    /// Which copies and how to print them, as a client asks (every field bounded).
    struct Options: Sendable, Equatable {
        var layout = LabelLayout.averyL7160
        var startAt = 1
        var offsetX = 0.0
        var offsetY = 0.0
        /// One title's copies.
        var title: UUID?
        /// Copies added on or after this day (in the library's time zone).
        var since: Date?
        /// The text of the day asked for, to show it again in the form.
        var sinceDay: String?
        /// Copies on this shelf.
        var location: String?
        /// Copies of the titles of this smart collection, as it stands when printed.
        var collection: UUID?
        /// The collection's titles now (read by `resolve`).
        var collectionTitles: [UUID]?
        /// Outlines of the labels, for the preview only.
        var outlines = true

        /// The options as a query, to link the PDF and the previews (what `options(_:timeZone:)` reads).
        var query: [(String, String)] {
            var pairs: [(String, String)] = [("layout", layout.rawValue)]
            if startAt != 1 { pairs.append(("start", String(startAt))) }
            if offsetX != 0 { pairs.append(("offsetX", String(offsetX))) }
            if offsetY != 0 { pairs.append(("offsetY", String(offsetY))) }
            if let title { pairs.append(("title", title.uuidString)) }
            if let sinceDay { pairs.append(("since", sinceDay)) }
            if let location { pairs.append(("location", location)) }
            if let collection { pairs.append(("collection", collection.uuidString)) }
            return pairs
        }

        static func == (a: Options, b: Options) -> Bool { a.query.elementsEqual(b.query) { $0 == $1 } }
    }

    struct Label: Sendable, Equatable {
        var barcode: String
        var title: String
        var authors: [String]
        var location: String?
        var language: String
        /// The title's call number, which a spine label carries broken across lines.
        var callNumber: String? = nil
    }

    enum Problem: DomainError, Equatable {
        case tooMany(Int)
        case nothingToPrint
        var described: Described {
            switch self {
            case .tooMany(let n): .init(.invalid, "too_many_labels", details: ["count": String(n), "max": String(LabelSheets.maxLabels)]) {
                $0.format(.errTooManyLabels, $0.number(n), $0.number(LabelSheets.maxLabels))
            }
            case .nothingToPrint: .init(.notFound, "nothing_to_print") { $0(.errNothingToPrint) }
            }
        }
    }

    /// The options in a request's query (`layout`, `start`, `offsetX`, `offsetY`, `title`, `since`,
    /// `location`), refused by field when out of bounds.
    static func options(_ req: Request, timeZone: TimeZone) throws -> Options {
        var o = Options()
        if let raw = req.query[String.self, at: "layout"], !raw.isEmpty {
            guard let layout = LabelLayout(rawValue: raw) else {
                throw RequestError.oneOf(field: "layout", allowed: LabelLayout.allCases.map(\.rawValue), got: raw)
            }
            o.layout = layout
        }
        o.startAt = try req.intQuery("start", default: 1, range: 1...o.layout.sheet.perSheet)
        o.offsetX = try millimetres(req, "offsetX")
        o.offsetY = try millimetres(req, "offsetY")
        o.title = try req.uuidQuery("title")
        if let raw = req.query[String.self, at: "since"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard let day = day(raw, timeZone: timeZone) else { throw InputProblem.notADate(field: "since", value: String(raw.prefix(40))) }
            o.since = day
            o.sinceDay = raw
        }
        o.collection = try req.uuidQuery("collection")
        if let raw = req.query[String.self, at: "location"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty {
            guard raw.count <= 100 else { throw InputProblem.tooLong(field: "location", max: 100) }
            o.location = raw
        }
        return o
    }

    /// The start of a day written `2026-11-19`, in `timeZone`; nil for anything else.
    static func day(_ text: String, timeZone: TimeZone) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard text.count == 10, parts.count == 3, let y = parts[0], let m = parts[1], let d = parts[2], (1...9999).contains(y),
              let day = calendar.date(from: DateComponents(year: y, month: m, day: d)),
              calendar.dateComponents([.year, .month, .day], from: day) == DateComponents(year: y, month: m, day: d) else { return nil }
        return day
    }

    /// The day a week before `now`, written `2026-11-19`: "this week's new books", the form's first answer.
    static func weekAgo(_ now: Date, timeZone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day], from: calendar.date(byAdding: .day, value: -7, to: now) ?? now)
        return String(format: "%04d-%02d-%02d", c.year ?? 2000, c.month ?? 1, c.day ?? 1)
    }

    private static func millimetres(_ req: Request, _ field: String) throws -> Double {
        guard let raw = req.query[String.self, at: field]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return 0 }
        let limit = SheetLayout.maxOffset
        guard raw.count <= 64, let value = Double(raw.replacingOccurrences(of: ",", with: ".")), value.isFinite else {
            throw InputProblem.notANumber(field: field)
        }
        guard abs(value) <= limit else { throw InputProblem.outOfRange(field: field, min: -Int(limit), max: Int(limit), got: Int(min(max(value, -1e9), 1e9).rounded())) }
        return (value * 10).rounded() / 10
    }

    /// Reads the titles of the options' collection (404 when the library has no such collection).
    static func resolve(_ options: Options, library: UUID, now: Date, on db: any Database) async throws -> Options {
        guard let id = options.collection else { return options }
        var o = options
        let collection = try await Collections.get(id, library: library, on: db)
        o.collectionTitles = try await Collections.titleIDs(collection.filter, library: library, now: now, limit: maxLabels, on: db)
        return o
    }

    /// Copies `options` select (`c`, joined with their title `t`): never wishlist items, nor lost or
    /// withdrawn copies.
    static func clause(_ options: Options, library: UUID) -> SQLQueryString {
        var clause: SQLQueryString = "c.library_no = \(LibraryNumber.of(library)) AND t.wishlist = \(bind: false)"
            + " AND c.status NOT IN (\(bind: CopyStatus.lost.rawValue), \(bind: CopyStatus.withdrawn.rawValue))"
        if let title = options.title { clause += " AND c.title_id = \(bind: title)" }
        if let since = options.since { clause += " AND c.created_at >= \(bind: since)" }
        if let location = options.location { clause += " AND c.location = \(bind: location)" }
        if let titles = options.collectionTitles {
            clause += titles.isEmpty ? " AND 1 = 0" : " AND c.title_id IN (\(binds: titles))"
        }
        return clause
    }

    /// How many labels `options` select.
    static func count(_ options: Options, library: UUID, on db: any Database) async throws -> Int {
        try await db.sql.raw("SELECT COUNT(*) AS n FROM copies c JOIN titles t ON t.id = c.title_id WHERE " + clause(options, library: library))
            .first()?.decode(column: "n", as: Int.self) ?? 0
    }

    /// The labels `options` select, A–Z by title then by copy number (spine labels in shelf order, as
    /// they go on the shelf). More than `maxLabels` is refused with the count, so the volunteer can narrow it.
    static func labels(_ options: Options, library: UUID, on db: any Database) async throws -> [Label] {
        let order: SQLQueryString = options.layout.isSpine ? " ORDER BY t.call_number_sort, t.sort_key, t.id, c.copy_number" : " ORDER BY t.sort_key, t.id, c.copy_number"
        let rows = try await db.sql.raw("SELECT c.barcode, c.location, t.title, t.authors, t.language, COALESCE(c.call_number, t.call_number) AS call_number FROM copies c JOIN titles t ON t.id = c.title_id WHERE "
                                        + clause(options, library: library) + order + " LIMIT \(literal: maxLabels + 1)").all()
        if rows.count > maxLabels { throw Problem.tooMany(try await count(options, library: library, on: db)) }
        return try rows.map { row in
            Label(barcode: try row.decode(column: "barcode", as: String.self), title: try row.decode(column: "title", as: String.self),
                  authors: try row.decode(column: "authors", as: [String].self), location: try row.decode(column: "location", as: String?.self),
                  language: try row.decode(column: "language", as: String?.self) ?? "en",
                  callNumber: try row.decode(column: "call_number", as: String?.self))
        }
    }

    /// The shelves copies are on, for the forms to offer (at most 300), A–Z: found by seeking from one
    /// shelf to the next in the `(library_id, location)` index (`AddCopyShelfIndexes`), so the cost is
    /// the number of shelves, not of copies — the catalog page reads it on every view.
    static func locations(library: UUID, on db: any Database) async throws -> [String] {
        try await db.sql.raw("""
            WITH RECURSIVE shelf(location, n) AS (
                SELECT (SELECT MIN(location) FROM copies WHERE library_no = \(LibraryNumber.of(library)) AND location > ''), 1
                UNION ALL
                SELECT (SELECT MIN(c.location) FROM copies c WHERE c.library_no = \(LibraryNumber.of(library)) AND c.location > shelf.location), n + 1
                FROM shelf WHERE shelf.location IS NOT NULL AND n < 300
            )
            SELECT location FROM shelf WHERE location IS NOT NULL
            """).all().map { try $0.decode(column: "location", as: String.self) }
    }

    static func pageSize(_ layout: LabelLayout) -> PDFDocument.PageSize {
        layout.sheet.paper == .a4 ? .a4 : .letter
    }

    /// The PDF of `labels`.
    static func pdf(_ labels: [Label], _ options: Options, title: String) throws -> [UInt8] {
        try PDFDocument.make(size: pageSize(options.layout), title: title) { draw(labels, options, outlines: false, on: $0) }
    }

    /// Page `page` (from 0) as it will print, as a PNG, with the labels' edges drawn in grey.
    static func preview(_ labels: [Label], _ options: Options, page: Int) throws -> [UInt8] {
        try PDFDocument.preview(size: pageSize(options.layout), page: page, dpi: 96) { draw(labels, options, outlines: options.outlines, on: $0) }
    }

    static func draw(_ labels: [Label], _ options: Options, outlines: Bool, on pdf: PDFDocument) {
        let sheet = options.layout.sheet
        let mm = PDFDocument.pointsPerMM
        var page = -1
        func turn(to target: Int) {
            while page < target {
                pdf.newPage()
                page += 1
                if outlines {
                    for slot in 0..<sheet.perSheet {
                        let p = sheet.place(slot)
                        pdf.outline(x: p.x * mm, y: p.y * mm, width: sheet.width * mm, height: sheet.height * mm, radius: 2 * mm)
                    }
                }
            }
        }
        for (index, label) in labels.enumerated() {
            let place = sheet.place(index, startAt: options.startAt, offsetX: options.offsetX, offsetY: options.offsetY)
            turn(to: place.page)
            // Labels on other pages of a preview are not drawn at all.
            guard pdf.drawing else { continue }
            if options.layout.isSpine {
                spine(label, x: place.x * mm, y: place.y * mm, width: sheet.width * mm, height: sheet.height * mm, on: pdf)
            } else {
                address(label, x: place.x * mm, y: place.y * mm, width: sheet.width * mm, height: sheet.height * mm, on: pdf)
            }
        }
        if labels.isEmpty { turn(to: 0) }
    }

    /// The inner margin of a label's text (mm): label printers cannot print to the very edge.
    static let padding = 2.5

    /// A copy label: title (bold), author and shelf, the barcode and its text beneath.
    static func address(_ label: Label, x: Double, y: Double, width: Double, height: Double, on pdf: PDFDocument) {
        let mm = PDFDocument.pointsPerMM
        let pad = padding * mm
        let inner = width - 2 * pad
        let tall = height > 30 * mm
        var top = y + 1.5 * mm
        top += pdf.text(label.title, x: x + pad, y: top, width: inner, style: .init(size: 8, bold: true, maxLines: tall ? 2 : 1), language: label.language)
        let byline = [label.authors.first, label.location].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        if !byline.isEmpty {
            top += pdf.text(byline, x: x + pad, y: top, width: inner, style: .init(size: 7, grey: true, maxLines: 1), language: label.language)
        }
        let textHeight = pdf.height(of: label.barcode, width: inner, style: .init(size: 7))
        let bottom = y + height - 1 * mm
        let barTop = top + 0.8 * mm
        barcode(label.barcode, x: x, y: barTop, width: width, height: min(15 * mm, max(4 * mm, bottom - textHeight - barTop)), on: pdf)
        pdf.text(label.barcode, x: x + pad, y: min(bottom, barTop + 15 * mm + textHeight) - textHeight, width: inner, style: .init(size: 7, centred: true))
    }

    /// A spine label: the call number broken as a spine carries it ("823.914" over "ROW"), or without
    /// one the shelf mark (shelf and the author's first letters); the title small beneath when it fits.
    static func spine(_ label: Label, x: Double, y: Double, width: Double, height: Double, on pdf: PDFDocument) {
        let mm = PDFDocument.pointsPerMM
        let pad = padding * mm
        if let callNumber = label.callNumber, !callNumber.isEmpty {
            var lines = CallNumber.spineLines(callNumber, width: 10)
            // 16.9 mm holds four lines of 9 pt; a longer call number keeps its last parts on the fourth.
            let fit = max(1, Int((height - 2 * mm) / (3.6 * mm)))
            if lines.count > fit { lines = Array(lines.prefix(fit - 1)) + [lines.dropFirst(fit - 1).joined(separator: " ")] }
            let size = lines.count <= 2 ? 11.0 : 9.0
            var top = y + 1.2 * mm
            for line in lines {
                top += pdf.text(line, x: x + pad, y: top, width: width - 2 * pad, style: .init(size: size, bold: true, maxLines: 1, centred: true),
                                language: label.language)
            }
            if top + 3 * mm < y + height {
                pdf.text(label.title, x: x + pad, y: top, width: width - 2 * pad, style: .init(size: 6.5, grey: true, maxLines: 1, centred: true),
                         language: label.language)
            }
            return
        }
        let mark = [label.location, SpineMark.authorLetters(label.authors)].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · ")
        var top = y + 1.2 * mm
        top += pdf.text(mark.isEmpty ? label.barcode : mark, x: x + pad, y: top, width: width - 2 * pad, style: .init(size: 13, bold: true, maxLines: 1, centred: true),
                        language: label.language)
        pdf.text(label.title + " · " + label.barcode, x: x + pad, y: top, width: width - 2 * pad, style: .init(size: 6.5, grey: true, maxLines: 1, centred: true),
                 language: label.language)
    }

    /// A Code 128 barcode centred in `width`, its narrowest bar at most 0.33 mm (what a phone and a
    /// handheld scanner read best) and never so wide that the quiet zones (10 modules each side) leave the label.
    static func barcode(_ text: String, x: Double, y: Double, width: Double, height: Double, on pdf: PDFDocument) {
        guard let bars = try? BarcodeRenderer.code128Bars(text) else { return }
        let mm = PDFDocument.pointsPerMM
        let module = min(0.33 * mm, width / (bars.modules + 20))
        let left = x + (width - bars.modules * module) / 2
        pdf.fill(bars.bars.map { PDFDocument.Rect(x: left + $0.x * module, y: y, width: $0.width * module, height: height) })
    }
}
