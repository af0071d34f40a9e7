import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import ShelfmarkPDF
import SQLKit
import Vapor

/// The printed catalog: the library's books A–Z (under their letters), or grouped by shelf,
/// category or reading level, each with its author, year, shelf, level and ISBN, with covers if
/// asked; "page X of Y" at the foot of every page. A shelf or a smart collection narrows it. And a
/// book's own page as a PDF.
enum CatalogSheets {
    /// At most this many books in one printed catalog (a 20,000-book school fits; a larger library
    /// prints shelf by shelf), and this many with covers.
    static let maxTitles = 25_000
    static let maxWithCovers = 2_000

    enum Grouping: String, Sendable, CaseIterable {
        case az, shelf, category, level
        /// In shelf order, under the call number's class (Dewey by hundreds: "800") or prefix ("F", "REF", LC "PR").
        case callNumber = "call-number"
    }

    struct Options: Sendable, Equatable {
        var grouping = Grouping.az
        var covers = false
        var paper = SheetLayout.Paper.a4
        var shelf: String?
        var collection: UUID?

        var query: [(String, String)] {
            var pairs = [("group", grouping.rawValue), ("paper", paper.rawValue)]
            if covers { pairs.append(("covers", "true")) }
            if let shelf { pairs.append(("shelf", shelf)) }
            if let collection { pairs.append(("collection", collection.uuidString)) }
            return pairs
        }
    }

    struct Entry: Sendable {
        var title: String
        var details: String
        var language: String?
        var cover: Thumbnail?
    }

    struct Group: Sendable {
        var heading: String
        var entries: [Entry]
    }

    enum Problem: DomainError, Equatable {
        case tooMany(count: Int, max: Int)
        var described: Described {
            switch self {
            case .tooMany(let n, let max): .init(.invalid, "too_many_books", details: ["count": String(n), "max": String(max)]) {
                $0.format(.errCatalogTooLarge, $0.number(max), $0.number(n))
            }
            }
        }
    }

    static func options(_ req: Request) throws -> Options {
        var o = Options()
        if let raw = req.query[String.self, at: "group"], !raw.isEmpty {
            guard let grouping = Grouping(rawValue: raw) else {
                throw RequestError.oneOf(field: "group", allowed: Grouping.allCases.map(\.rawValue), got: raw)
            }
            o.grouping = grouping
        }
        o.paper = try req.paperQuery()
        o.covers = try req.flag("covers")
        if let raw = req.query[String.self, at: "shelf"]?.cleanedInput, !raw.isEmpty {
            guard raw.count <= 200 else { throw InputProblem.tooLong(field: "shelf", max: 200) }
            o.shelf = raw
        }
        o.collection = try req.uuidQuery("collection")
        return o
    }

    // MARK: - What is printed

    private struct Row: Decodable {
        var id: UUID; var title: String; var authors: [String]; var published_date: String?; var publisher: String?; var isbn13: String?
        var cover_url: String?; var reading_level: String?; var level_scheme: String?; var level_value: Double?; var section: String
        var language: String?
        var call_number: String?
        var call_number_sort: String
    }

    /// The heading a call number is printed under: a Dewey class by its hundreds ("823.914 ROW" → "800"),
    /// else its first part ("F BYR" → "F", "PR6120.C43" → "PR").
    static func callNumberGroup(_ callNumber: String) -> String {
        let first = CallNumber.spineLines(callNumber).first ?? callNumber
        let head = first.prefix(3)
        if head.count == 3, head.allSatisfy(\.isNumber), let hundreds = head.first { return "\(hundreds)00" }
        return first
    }

    /// The groups `options` select, in order; refused (with the count) past the maximum.
    static func groups(_ options: Options, library: UUID, now: Date, t: Strings, on db: any Database) async throws -> [Group] {
        let limit = options.covers ? maxWithCovers : maxTitles
        // The whole catalog past the bound is refused from its count, before a title is read.
        if options.shelf == nil, options.collection == nil {
            let count = try await db.sql.raw("SELECT COUNT(*) AS n FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND wishlist = \(bind: false)")
                .first()?.decode(column: "n", as: Int.self) ?? 0
            guard count <= limit else { throw Problem.tooMany(count: count, max: limit) }
        }
        var rows = try await db.sql.raw("""
            SELECT id, title, authors, published_date, publisher, isbn13, cover_url, reading_level, level_scheme, level_value, section, language,
              call_number, call_number_sort
            FROM titles WHERE library_no = \(LibraryNumber.of(library)) AND wishlist = \(bind: false)
            """ + (options.grouping == .callNumber ? " ORDER BY call_number_sort, sort_key, id" : " ORDER BY sort_key, id")).all(decoding: Row.self)
        if let id = options.collection {
            let collection = try await Collections.get(id, library: library, on: db)
            let ids = Set(try await Collections.titleIDs(collection.filter, library: library, now: now, limit: maxTitles + 1, on: db))
            rows = rows.filter { ids.contains($0.id) }
        }
        var shelves: [UUID: [String]] = [:]
        for row in try await db.sql.raw("""
            SELECT DISTINCT title_id, location FROM copies WHERE library_no = \(LibraryNumber.of(library)) AND location IS NOT NULL AND location <> ''
            AND status NOT IN ('lost', 'withdrawn') ORDER BY location
            """).all() {
            shelves[try row.decode(column: "title_id", as: UUID.self), default: []].append(try row.decode(column: "location", as: String.self))
        }
        if let shelf = options.shelf { rows = rows.filter { shelves[$0.id]?.contains(shelf) ?? false } }
        guard rows.count <= limit else { throw Problem.tooMany(count: rows.count, max: limit) }

        var categories: [UUID: [String]] = [:]
        if options.grouping == .category {
            for row in try await db.sql.raw("""
                SELECT tc.title_id, c.name FROM title_categories tc JOIN categories c ON c.id = tc.category_id WHERE c.library_id = \(bind: library)
                """).all() {
                categories[try row.decode(column: "title_id", as: UUID.self), default: []].append(try row.decode(column: "name", as: String.self))
            }
        }
        var covers: [UUID: Thumbnail] = [:]
        if options.covers {
            for row in rows {
                guard let url = row.cover_url, let id = Backup.coverID(url), let image = try await CoverStore.load(id, on: db) else { continue }
                covers[row.id] = try? Thumbnail.make(image.bytes, maxSide: 180)
            }
        }
        func entry(_ r: Row) -> Entry {
            let authors = r.authors
            let year = r.published_date.map { String($0.prefix(4)) }
            let details: [String?] = [options.grouping == .callNumber ? r.call_number : nil,
                                      authors.isEmpty ? nil : authors.joined(separator: ", "), year, r.publisher,
                                      shelves[r.id]?.first.map { t.format(.shelfHeading, $0) }, r.reading_level, r.isbn13]
            return Entry(title: r.title, details: details.compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · "),
                         language: r.language, cover: covers[r.id])
        }
        func grouped(_ key: (Row) -> [String], missing: String, order: (String, String) -> Bool) -> [Group] {
            var byKey: [String: [Entry]] = [:], none: [Entry] = []
            for r in rows {
                let keys = key(r)
                if keys.isEmpty { none.append(entry(r)) }
                for k in keys { byKey[k, default: []].append(entry(r)) }
            }
            let named = byKey.keys.sorted(by: order).map { Group(heading: $0, entries: byKey[$0]!) }
            return named + (none.isEmpty ? [] : [Group(heading: missing, entries: none)])
        }
        let natural: (String, String) -> Bool = { $0.localizedStandardCompare($1) == .orderedAscending }
        switch options.grouping {
        case .az:
            var groups: [Group] = []
            for r in rows {
                if groups.last?.heading != r.section { groups.append(Group(heading: r.section, entries: [])) }
                groups[groups.count - 1].entries.append(entry(r))
            }
            return groups
        case .shelf:
            return grouped({ shelves[$0.id] ?? [] }, missing: t(.noPlace), order: natural)
        case .category:
            return grouped({ categories[$0.id] ?? [] }, missing: t(.noCategoryGroup), order: natural)
        case .callNumber:
            // Rows come in shelf order: a heading starts where the group changes; books without one last.
            var groups: [Group] = []
            var none: [Entry] = []
            for r in rows {
                guard let callNumber = r.call_number else { none.append(entry(r)); continue }
                let heading = callNumberGroup(callNumber)
                if groups.last?.heading != heading { groups.append(Group(heading: heading, entries: [])) }
                groups[groups.count - 1].entries.append(entry(r))
            }
            return groups + (none.isEmpty ? [] : [Group(heading: t(.noCallNumberGroup), entries: none)])
        case .level:
            // AR by whole levels, Lexile by hundreds, guided reading by letter, Antolin by school year; others as written.
            var keys: [String: (Int, Double)] = [:]
            let groups = grouped({ r in
                guard let text = r.reading_level, !text.isEmpty else { return [] }
                let scheme = r.level_scheme.flatMap(ReadingLevel.Scheme.init(rawValue:)) ?? .other
                let heading: String, rank: Double
                switch (scheme, r.level_value) {
                case (.ar, let v?): (heading, rank) = ("AR \(Int(v.rounded(.down)))", v.rounded(.down))
                case (.lexile, let v?): (heading, rank) = ("Lexile \(Int((v / 100).rounded(.down)) * 100)L", (v / 100).rounded(.down))
                case (.guided, let v?): (heading, rank) = (ReadingLevel.parse(text)?.canonical ?? text, v)
                case (.antolin, let v?): (heading, rank) = (ReadingLevel.parse(text)?.canonical ?? text, v)
                default: (heading, rank) = (text, 0)
                }
                let order = [ReadingLevel.Scheme.ar, .lexile, .guided, .antolin, .other].firstIndex(of: scheme) ?? 9
                keys[heading] = (order, rank)
                return [heading]
            }, missing: t(.noLevelGroup), order: { a, b in
                let (x, y) = (keys[a] ?? (9, 0), keys[b] ?? (9, 0))
                return x != y ? (x.0, x.1) < (y.0, y.1) : natural(a, b)
            })
            return groups
        }
    }

    // MARK: - Drawing

    static func pageSize(_ paper: SheetLayout.Paper) -> PDFDocument.PageSize { paper == .a4 ? .a4 : .letter }

    static let margin = 15.0, top = 18.0, bottom = 16.0, headingHeight = 10.0

    static func entryHeight(covers: Bool) -> Double { covers ? 24 : 10.5 }

    static func layout(_ groups: [Group], _ options: Options) -> CatalogLayout {
        CatalogLayout(groupSizes: groups.map(\.entries.count), usable: options.paper.height - top - bottom,
                      headingHeight: headingHeight, entryHeight: entryHeight(covers: options.covers))
    }

    static func pdf(_ groups: [Group], _ options: Options, header: String, t: Strings) throws -> [UInt8] {
        try PDFDocument.make(size: pageSize(options.paper), title: header) { draw(groups, options, header: header, t: t, on: $0) }
    }

    static func preview(_ groups: [Group], _ options: Options, header: String, t: Strings, page: Int) throws -> [UInt8] {
        try PDFDocument.preview(size: pageSize(options.paper), page: page, dpi: 96) { draw(groups, options, header: header, t: t, on: $0) }
    }

    /// Page by page: the header and "page X of Y" on each, then the headings and entries the layout
    /// puts there (on a preview only the previewed page's are laid out).
    static func draw(_ groups: [Group], _ options: Options, header: String, t: Strings, on pdf: PDFDocument) {
        let mm = PDFDocument.pointsPerMM
        let layout = layout(groups, options)
        let (width, height) = (options.paper.width, options.paper.height)
        let textWidth = (width - 2 * margin) * mm
        // Every group's heading and entries, indexed by page.
        var onPage: [[(group: Int, entry: Int?)]] = Array(repeating: [], count: layout.pages)
        for (g, heading) in layout.headings.enumerated() {
            onPage[heading.page].append((g, nil))
            for (e, place) in layout.entries[g].enumerated() { onPage[place.page].append((g, e)) }
        }
        for page in 0..<layout.pages {
            pdf.newPage()
            guard pdf.drawing else { continue }
            pdf.text(header, x: margin * mm, y: 8 * mm, width: textWidth, style: .init(size: 8, grey: true, maxLines: 1))
            pdf.rule(x: margin * mm, y: 13 * mm, width: textWidth)
            pdf.text(t.format(.catalogPageOf, t.number(page + 1), t.number(layout.pages)), x: margin * mm, y: (height - 10) * mm, width: textWidth,
                     style: .init(size: 8, grey: true, centred: true))
            for (g, e) in onPage[page] {
                if let e {
                    let y = (top + layout.entries[g][e].y) * mm
                    let entry = groups[g].entries[e]
                    var x = margin * mm, w = textWidth
                    if options.covers {
                        let box = (width: 14 * mm, height: 21 * mm)
                        if let cover = entry.cover {
                            pdf.image(pixels: cover.pixels, width: cover.width, height: cover.height, x: x, y: y, boxWidth: box.width, boxHeight: box.height)
                        } else {
                            pdf.outline(x: x, y: y, width: box.width, height: box.height, grey: 0.85)
                        }
                        x += box.width + 4 * mm
                        w -= box.width + 4 * mm
                    }
                    let language = entry.language ?? "en"
                    let titleHeight = pdf.text(entry.title, x: x, y: y, width: w, style: .init(size: 10, bold: true, maxLines: options.covers ? 2 : 1),
                                               language: language)
                    pdf.text(entry.details, x: x, y: y + titleHeight, width: w, style: .init(size: 8, grey: true, maxLines: options.covers ? 3 : 1),
                             language: language)
                } else {
                    let y = (top + layout.headings[g].y) * mm
                    pdf.text(groups[g].heading, x: margin * mm, y: y + 2 * mm, width: textWidth, style: .init(size: 13, bold: true, maxLines: 1))
                }
            }
        }
    }

    // MARK: - One book

    /// A book's page as a PDF (A4 or Letter): its cover, title, authors, facts, description and
    /// copies, each copy with its shelf, status and barcode.
    static func book(_ d: TitleDetail, cover: Thumbnail?, paper: SheetLayout.Paper, t: Strings) throws -> [UInt8] {
        try PDFDocument.make(size: pageSize(paper), title: d.title) { drawBook(d, cover: cover, paper: paper, t: t, on: $0) }
    }

    static func bookPreview(_ d: TitleDetail, cover: Thumbnail?, paper: SheetLayout.Paper, t: Strings) throws -> [UInt8] {
        try PDFDocument.preview(size: pageSize(paper), page: 0, dpi: 96) { drawBook(d, cover: cover, paper: paper, t: t, on: $0) }
    }

    static func drawBook(_ d: TitleDetail, cover: Thumbnail?, paper: SheetLayout.Paper, t: Strings, on pdf: PDFDocument) {
        let mm = PDFDocument.pointsPerMM
        let language = d.language ?? "en"
        let left = 20 * mm, width = (paper.width - 40) * mm
        pdf.newPage()
        var y = 20 * mm
        var textX = left, textWidth = width
        if let cover {
            pdf.image(pixels: cover.pixels, width: cover.width, height: cover.height, x: left, y: y, boxWidth: 50 * mm, boxHeight: 75 * mm)
            textX += 56 * mm
            textWidth -= 56 * mm
        }
        var textY = y
        textY += pdf.text(d.title, x: textX, y: textY, width: textWidth, style: .init(size: 20, bold: true, maxLines: 4), language: language) + 1 * mm
        if let subtitle = d.subtitle {
            textY += pdf.text(subtitle, x: textX, y: textY, width: textWidth, style: .init(size: 12, maxLines: 3), language: language) + 1 * mm
        }
        if !d.authors.isEmpty {
            textY += pdf.text(d.authors.joined(separator: ", "), x: textX, y: textY, width: textWidth, style: .init(size: 12, grey: true, maxLines: 2),
                              language: language) + 3 * mm
        }
        let facts: [(L, String?)] = [
            (.publisher, d.publisher), (.published, d.publishedDate), (.pages, d.pageCount.map { t.number($0) }),
            (.isbn, d.isbnHyphenated ?? d.isbn13), (.seriesField, d.series.map { s in d.seriesNumber.map { "\(s) #\($0)" } ?? s }),
            (.readingLevelField, d.readingLevel), (.categories, d.categories.isEmpty ? nil : d.categories.map(\.name).joined(separator: ", ")),
        ]
        for (label, value) in facts {
            guard let value, !value.isEmpty else { continue }
            textY += pdf.text(t(label) + ": " + value, x: textX, y: textY, width: textWidth, style: .init(size: 10, maxLines: 2), language: language) + 0.8 * mm
        }
        y = max(textY, cover == nil ? textY : y + 78 * mm) + 4 * mm
        if let description = d.description, !description.isEmpty {
            pdf.rule(x: left, y: y, width: width)
            y += 3 * mm
            y += pdf.text(description, x: left, y: y, width: width, style: .init(size: 10, maxLines: 18), language: language) + 4 * mm
        }
        guard !d.copies.isEmpty else { return }
        pdf.rule(x: left, y: y, width: width)
        y += 3 * mm
        y += pdf.text(t(.copies), x: left, y: y, width: width, style: .init(size: 12, bold: true)) + 2 * mm
        let bottom = (paper.height - 20) * mm
        for copy in d.copies {
            guard y + 16 * mm < bottom else { break }
            let line = [t.format(.copyNumber, t.number(copy.copyNumber)), copy.barcode, TitlePage.statusText(copy.status, t: t),
                        copy.location.map { t.format(.shelfHeading, $0) }].compactMap { $0 }.joined(separator: " · ")
            pdf.text(line, x: left, y: y + 2 * mm, width: width - 60 * mm, style: .init(size: 10, maxLines: 2))
            LabelSheets.barcode(copy.barcode, x: left + width - 58 * mm, y: y, width: 58 * mm, height: 10 * mm, on: pdf)
            y += 14 * mm
        }
    }
}
