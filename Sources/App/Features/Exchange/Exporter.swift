import Fluent
import FluentSQLiteDriver
import Foundation
import ShelfmarkCore
import SQLKit

/// What a library can be exported as.
enum ExportFormat: String, CaseIterable, Sendable {
    case csv
    case wishlistCSV = "wishlist-csv"
    case json
    case marc
    case marcXML = "marcxml"

    var fileName: String {
        switch self {
        case .csv: "library_catalog.csv"
        case .wishlistCSV: "library_wishlist.csv"
        case .json: "library.json"
        case .marc: "library.mrc"
        case .marcXML: "library.xml"
        }
    }

    var contentType: String {
        switch self {
        case .csv, .wishlistCSV: "text/csv; charset=utf-8"
        case .json: "application/json"
        case .marc: "application/marc"
        case .marcXML: "application/marcxml+xml; charset=utf-8"
        }
    }

    static var list: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Exports: the catalog and the wishlist as the seed's CSV formats, the whole library as
/// JSON, the catalog as MARC 21 and MARCXML.
enum Exporter {
    static func export(_ format: ExportFormat, libraryID: UUID, now: Date, on db: any Database) async throws -> Data {
        switch format {
        case .csv: return try await catalogCSV(libraryID: libraryID, on: db)
        case .wishlistCSV: return try await wishlistCSV(libraryID: libraryID, on: db)
        case .json: return try Backup.encode(try await Backup.make(libraryID: libraryID, includeCovers: false, now: now, on: db))
        case .marc:
            var out = Data()
            for title in try await marcTitles(libraryID: libraryID, on: db) { out.append(MARC21Writer.data(MARCMapping.record(title))) }
            return out
        case .marcXML:
            var out = MARCXML.header()
            for title in try await marcTitles(libraryID: libraryID, on: db) { out += MARCXML.record(MARCMapping.record(title)) }
            out += MARCXML.footer  // appended in place: `out + footer` copied the whole document once more
            return Data(out.utf8)
        }
    }

    /// The catalog (not the wishlist) with categories and countable copies, A–Z.
    static func marcTitles(libraryID: UUID, on db: any Database) async throws -> [MARCExportTitle] {
        let read = if let sqlite = db as? any SQLiteDatabase {
            try await sqliteMARCRead(libraryID: libraryID, on: sqlite)
        } else {
            try await sqlMARCRead(libraryID: libraryID, on: db.sql)
        }
        // The titles' other series (few rows: read the same way from either database).
        let series = try await db.sql.raw("""
            SELECT ts.title_id, ts.position, ts.name, ts.number FROM title_series ts JOIN titles t ON t.id = ts.title_id
            WHERE t.library_no = \(LibraryNumber.of(libraryID)) ORDER BY ts.title_id, ts.position
            """).all(decoding: TitleSeriesRow.self)
        var seriesByTitle: [String: [SeriesEntry]] = [:]
        for row in series { seriesByTitle[controlNumber(row.title_id.uuidString), default: []].append(SeriesEntry(name: row.name, number: row.number)) }
        return read.assembled().map { title in
            var t = title
            t.moreSeries = seriesByTitle[t.controlNumber] ?? []
            return t
        }
    }

    /// What a MARC export reads, from either database: the titles A–Z with their own columns, and
    /// the categories (A–Z) and countable copies (by copy number) of each, keyed by control number.
    private struct MARCRead {
        var titles: [MARCExportTitle]
        var categories: [(title: String, name: String)]
        var copies: [(title: String, copy: MARCExportTitle.Copy)]

        func assembled() -> [MARCExportTitle] {
            var categoriesByTitle: [String: [String]] = [:]
            for c in categories { categoriesByTitle[c.title, default: []].append(c.name) }
            var copiesByTitle: [String: [MARCExportTitle.Copy]] = [:]
            for c in copies { copiesByTitle[c.title, default: []].append(c.copy) }
            return titles.map { title in
                var t = title
                // A cover stored here means nothing to another system.
                t.coverURL = t.coverURL.flatMap { CoverStore.isLocal($0) ? nil : $0 }
                t.categories = categoriesByTitle[t.controlNumber] ?? []
                t.copies = copiesByTitle[t.controlNumber] ?? []
                return t
            }
        }
    }

    /// The control number of a title: its id as lower-case text.
    private static func controlNumber(_ id: String) -> String { id.lowercased() }

    /// An id read straight from the SQLite driver (16 bytes), as its control number: written here, not
    /// by `uuidString`, which formats each id with `sprintf`.
    private static func controlNumber(_ data: SQLiteData) -> String {
        guard case .blob(let bytes) = data, bytes.readableBytes == 16 else { return controlNumber(data.string ?? "") }
        let digits: StaticString = "0123456789abcdef"
        return bytes.withUnsafeReadableBytes { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                digits.withUTF8Buffer { hex in
                    var o = 0
                    for i in 0..<16 {
                        if i == 4 || i == 6 || i == 8 || i == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                        out[o] = hex[Int(raw[i] >> 4)]
                        out[o + 1] = hex[Int(raw[i] & 0x0F)]
                        o += 2
                    }
                }
                return 36
            }
        }
    }

    private static func sqlMARCRead(libraryID: UUID, on sql: any SQLDatabase) async throws -> MARCRead {
        struct TitleCategoryName: Decodable { var title_id: UUID; var name: String }
        struct CopyRow: Decodable { var title_id: UUID; var barcode: String; var location: String? }
        let rows = try await sql.raw("""
            SELECT * FROM titles WHERE library_no = \(LibraryNumber.of(libraryID)) AND wishlist = \(bind: false) ORDER BY sort_key, id
            """).all(decoding: TitleRow.self)
        let categories = try await sql.raw("""
            SELECT tc.title_id, c.name FROM title_categories tc JOIN categories c ON c.id = tc.category_id
            WHERE c.library_id = \(bind: libraryID) ORDER BY c.name
            """).all(decoding: TitleCategoryName.self)
        let copies = try await sql.raw("""
            SELECT title_id, barcode, location FROM copies WHERE library_no = \(LibraryNumber.of(libraryID)) AND status IN ('available', 'on_loan')
            ORDER BY copy_number
            """).all(decoding: CopyRow.self)
        return MARCRead(
            titles: rows.map { r in
                var t = MARCExportTitle(controlNumber: controlNumber(r.id.uuidString), title: r.title)
                t.isbn13 = r.isbn13
                t.subtitle = r.subtitle
                t.authors = r.authors
                t.publisher = r.publisher
                t.publishedDate = r.published_date
                t.pageCount = r.page_count
                t.language = r.language
                t.description = r.description
                t.notes = r.notes
                t.series = r.series
                t.seriesNumber = r.series_number
                t.coverURL = r.cover_url
                t.callNumber = r.call_number
                t.kept = r.marc_record.flatMap(MARCXMLReader.firstRecord)
                return t
            },
            categories: categories.map { (controlNumber($0.title_id.uuidString), $0.name) },
            copies: copies.map { (controlNumber($0.title_id.uuidString), .init(barcode: $0.barcode, location: $0.location)) })
    }

    /// The same reads straight from the SQLite driver in one read transaction: SQLKit's per-row
    /// decoding cost a sixth of a MARC export.
    private static func sqliteMARCRead(libraryID: UUID, on sqlite: any SQLiteDatabase) async throws -> MARCRead {
        let library = libraryID.sqliteData!
        return try await sqlite.withConnection { connection in
            try await connection.reading {
                let categories = try await connection.rows("""
                    SELECT tc.title_id, c.name FROM title_categories tc JOIN categories c ON c.id = tc.category_id
                    WHERE c.library_id = ? ORDER BY c.name
                    """, [library]) { row in (title: controlNumber(row.columns[0].data), name: row.columns[1].data.string ?? "") }
                let copies = try await connection.rows("""
                    SELECT title_id, barcode, location FROM copies WHERE library_no = (SELECT no FROM libraries WHERE id = ?) AND status IN ('available', 'on_loan')
                    ORDER BY copy_number
                    """, [library]) { row in
                    let c = row.columns
                    return (title: controlNumber(c[0].data),
                            copy: MARCExportTitle.Copy(barcode: c[1].data.string ?? "", location: c[2].data.string))
                }
                let titles = try await connection.rows("""
                    SELECT id, isbn13, title, subtitle, authors, publisher, published_date, page_count, language, description, notes,
                      series, series_number, cover_url, call_number, marc_record
                    FROM titles WHERE library_no = (SELECT no FROM libraries WHERE id = ?) AND wishlist = 0 ORDER BY sort_key, rowid
                    """, [library]) { row in
                    let c = row.columns  // by position: a lookup by name hashes the name for every value
                    func text(_ i: Int) -> String? { c[i].data.string }
                    var t = MARCExportTitle(controlNumber: controlNumber(c[0].data), title: text(2) ?? "")
                    t.isbn13 = text(1)
                    t.subtitle = text(3)
                    t.authors = try authors(text(4) ?? "[]")
                    t.publisher = text(5)
                    t.publishedDate = text(6)
                    t.pageCount = c[7].data.integer
                    t.language = text(8)
                    t.description = text(9)
                    t.notes = text(10)
                    t.series = text(11)
                    t.seriesNumber = text(12)
                    t.coverURL = text(13)
                    t.callNumber = text(14)
                    t.kept = text(15).flatMap(MARCXMLReader.firstRecord)
                    return t
                }
                return MARCRead(titles: titles, categories: categories, copies: copies)
            }
        }
    }

    /// `library_catalog.csv`: ISBN, Title, Author, Total Copies, Available Copies, Language, Publisher,
    /// Published Date, Page Count, Notes — A–Z by title. Lost and withdrawn copies are not counted.
    static func catalogCSV(libraryID: UUID, on db: any Database) async throws -> Data {
        var lines: [CatalogLine]
        if let sqlite = db as? any SQLiteDatabase {
            lines = try await sqliteCatalogLines(libraryID: libraryID, on: sqlite)
        } else {
            lines = try await catalogRows(libraryID: libraryID, on: db).map { CatalogLine(fields: try catalogFields($0)) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(lines.count * 100 + 200)
        CSVWriter.appendLine(ImportFormat.catalogColumns, to: &out)
        for line in lines { CSVWriter.appendLine(line.fields, to: &out) }
        lines = []
        return Data(out)
    }

    /// At most this many books in a CSV with their covers inside (a cover is some 20–60 kB as base64).
    static let maxWithCovers = 5_000
    /// At most this many bytes of covers (as base64) in one such CSV: one 5 MB cover shared by thousands
    /// of books would otherwise make a file of tens of gigabytes.
    static let maxCoverBytes = 1 << 30

    enum Problem: DomainError, Equatable {
        case tooManyForCovers(count: Int)
        case coversTooLarge(megabytes: Int)
        var described: Described {
            switch self {
            case .tooManyForCovers(let n): .init(.invalid, "too_many_books", field: "covers", details: ["count": String(n), "max": String(Exporter.maxWithCovers)]) {
                $0.format(.errCoversTooMany, $0.number(Exporter.maxWithCovers), $0.number(n))
            }
            case .coversTooLarge(let mb): .init(.invalid, "covers_too_large", field: "covers", details: ["megabytes": String(mb), "max": String(Exporter.maxCoverBytes >> 20)]) {
                $0.format(.errCoversTooLarge, $0.number(mb), $0.number(Exporter.maxCoverBytes >> 20))
            }
            }
        }
    }

    /// The catalog CSV with one more column, "Cover": a stored cover as a `data:` URL (its bytes in
    /// base64, as CodexScan writes them), an outside cover as its address, else empty. Checked first
    /// (books, and the covers' size as written), then written line by line into `write`: one cover's
    /// bytes in memory at a time (the last one kept while the next book shares it), whatever the size.
    static func catalogCSVWithCovers(libraryID: UUID, on db: any Database) async throws -> @Sendable (_ write: @Sendable (ByteBuffer) async throws -> Void) async throws -> Void {
        struct Line: Sendable { var fields: [String]; var cover: String? }
        let rows = try await catalogRows(libraryID: libraryID, on: db)
        guard rows.count <= maxWithCovers else { throw Problem.tooManyForCovers(count: rows.count) }
        let lines: [Line] = try rows.map { row in
            Line(fields: try catalogFields(row), cover: try row.decode(column: "cover_url", as: String?.self))
        }
        // How big the covers are as written (base64: 4 bytes for every 3), each stored cover as often as books show it.
        var uses: [UUID: Int] = [:]
        for line in lines { if let id = line.cover.flatMap(Backup.coverID) { uses[id, default: 0] += 1 } }
        var total = 0
        for chunk in Array(uses.keys).chunked(500) {
            struct Size: Decodable { var id: UUID; var n: Int }
            for size in try await db.sql.raw("SELECT id, LENGTH(bytes) AS n FROM covers WHERE id IN (\(binds: chunk))").all(decoding: Size.self) {
                total += (size.n + 2) / 3 * 4 * (uses[size.id] ?? 0)
            }
        }
        guard total <= maxCoverBytes else { throw Problem.coversTooLarge(megabytes: total >> 20) }
        return { write in
            var out: [UInt8] = []
            CSVWriter.appendLine(ImportFormat.catalogColumns + ["Cover"], to: &out)
            var last: (id: UUID, text: String)?
            for line in lines {
                var cover = ""
                if let url = line.cover {
                    if let id = Backup.coverID(url) {
                        if let kept = last, kept.id == id {
                            cover = kept.text
                        } else if let image = try await CoverStore.load(id, on: db) {
                            cover = "data:\(image.contentType);base64," + image.bytes.base64EncodedString()
                            last = (id, cover)
                        } else {
                            last = nil
                        }
                    } else {
                        cover = url
                    }
                }
                CSVWriter.appendLine(line.fields + [cover], to: &out)
                if out.count >= 64 << 10 {
                    try await write(ByteBuffer(bytes: out))
                    out.removeAll(keepingCapacity: true)
                }
            }
            if !out.isEmpty { try await write(ByteBuffer(bytes: out)) }
        }
    }

    /// The catalog's titles (or the wishlist's) with their copy counts (and cover address), A–Z: what the CSV's lines are made of.
    private static func catalogRows(libraryID: UUID, wishlist: Bool = false, on db: any Database) async throws -> [any SQLRow] {
        try await db.sql.raw("""
            SELECT t.isbn13, t.title, t.authors, t.language, t.publisher, t.published_date, t.page_count, t.notes, t.cover_url,
              COALESCE(SUM(CASE WHEN c.status IN ('available', 'on_loan') THEN 1 ELSE 0 END), 0) AS total,
              COALESCE(SUM(CASE WHEN c.status = 'available' THEN 1 ELSE 0 END), 0) AS available
            FROM titles t LEFT JOIN copies c ON c.title_id = t.id
            WHERE t.library_no = \(LibraryNumber.of(libraryID)) AND t.wishlist = \(bind: wishlist)
            GROUP BY t.id ORDER BY t.sort_key, t.id
            """).all()
    }

    /// A catalog row as the CSV's fields, in `ImportFormat.catalogColumns` order.
    private static func catalogFields(_ row: any SQLRow) throws -> [String] {
        [
            try row.decode(column: "isbn13", as: String?.self) ?? "",
            try row.decode(column: "title", as: String.self),
            try row.decode(column: "authors", as: [String].self).joined(separator: "; "),
            String(try row.decode(column: "total", as: Int.self)),
            String(try row.decode(column: "available", as: Int.self)),
            try row.decode(column: "language", as: String?.self) ?? "",
            try row.decode(column: "publisher", as: String?.self) ?? "",
            try row.decode(column: "published_date", as: String?.self) ?? "",
            (try row.decode(column: "page_count", as: Int?.self)).map(String.init) ?? "",
            try row.decode(column: "notes", as: String?.self) ?? "",
        ]
    }

    /// One line of the catalog CSV.
    struct CatalogLine {
        var fields: [String]
    }

    /// The catalog lines straight from the SQLite driver, without SQLKit's per-row decoding, in one
    /// read transaction. The titles are read in table order and put in A–Z order by their rank in
    /// the `sort_key` index: reading them through that index jumps to a random page of the table
    /// per row, which took longer than all the rest. Ties in `sort_key` fall in insertion order.
    private static func sqliteCatalogLines(libraryID: UUID, on sqlite: any SQLiteDatabase) async throws -> [CatalogLine] {
        let library = libraryID.sqliteData!
        return try await sqlite.withConnection { connection in
            try await connection.reading {
                let order = try await connection.rows("""
                    SELECT rowid FROM titles WHERE library_no = (SELECT no FROM libraries WHERE id = ?) AND wishlist = 0 ORDER BY sort_key, rowid
                    """, [library]) { $0.columns.first?.data.integer ?? 0 }
                var rank: [Int: Int] = [:]
                rank.reserveCapacity(order.count)
                for (position, rowid) in order.enumerated() { rank[rowid] = position }

                var counts: [UUID: (total: Int, available: Int)] = [:]
                for copy in try await connection.rows("SELECT title_id, status FROM copies WHERE library_no = (SELECT no FROM libraries WHERE id = ?)", [library], { row in
                    let columns = row.columns  // by position: a lookup by name hashes the name for every value
                    return (title: UUID(sqliteData: columns[0].data), status: columns[1].data.string ?? "")
                }) {
                    let available = copy.status == "available"
                    guard let title = copy.title, available || copy.status == "on_loan" else { continue }
                    counts[title, default: (0, 0)].total += 1
                    if available { counts[title, default: (0, 0)].available += 1 }
                }

                var rows = try await connection.rows("""
                    SELECT rowid, id, isbn13, title, authors, language, publisher, published_date, page_count, notes FROM titles
                    WHERE rowid IN (SELECT rowid FROM titles WHERE library_no = (SELECT no FROM libraries WHERE id = ?) AND wishlist = 0)
                    """, [library]) { row in
                    let columns = row.columns
                    func text(_ i: Int) -> String { columns[i].data.string ?? "" }
                    return (rowid: columns[0].data.integer ?? 0, id: UUID(sqliteData: columns[1].data), fields: [
                        text(2), text(3), try authors(text(4)).joined(separator: "; "),
                        "", "",
                        text(5), text(6), text(7), columns[8].data.integer.map { String($0) } ?? "", text(9),
                    ])
                }
                var lines = [CatalogLine](repeating: CatalogLine(fields: []), count: order.count)
                for i in rows.indices {
                    guard let position = rank[rows[i].rowid] else { continue }
                    let count = rows[i].id.flatMap { counts[$0] } ?? (0, 0)
                    var fields = rows[i].fields
                    rows[i].fields = []  // the line's fields are then its own: no copy when the counts go in
                    fields[3] = String(count.total)
                    fields[4] = String(count.available)
                    lines[position] = CatalogLine(fields: fields)
                }
                return lines
            }
        }
    }

    /// The authors column as the SQLite driver stores `[String]`: JSON text.
    private static func authors(_ text: String) throws -> [String] {
        if let names = JSONStringArray.parse(text) { return names }
        return try JSONDecoder().decode([String].self, from: Data(text.utf8))
    }

    /// `library_wishlist.csv`: the catalog CSV's columns and lines (a wish has no copies yet: 0 and 0),
    /// A–Z by title. The import reads it back as a wishlist by its name or its format.
    static func wishlistCSV(libraryID: UUID, on db: any Database) async throws -> Data {
        var out: [UInt8] = []
        CSVWriter.appendLine(ImportFormat.catalogColumns, to: &out)
        for row in try await catalogRows(libraryID: libraryID, wishlist: true, on: db) { CSVWriter.appendLine(try catalogFields(row), to: &out) }
        return Data(out)
    }
}
