import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkPDF
import SQLKit
import Vapor

/// `shelfmark bench-print`: the label target, on a library made for the run and removed after
/// it: 3,000 copies (titles in Latin, Irish and Chinese script, on 30 shelves) as one Avery L7160 label
/// PDF (143 sheets, ≤ 5 s and ≤ 200 MB), one sheet's preview PNG, and a baseline made in the same round:
/// a PDF of as many pages with one line of text each (what cairo and pango cost without labels).
/// Prints one JSON line per round.
struct BenchPrintCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "rounds", help: "Rounds (default 5)")
        var rounds: Int?
        @Option(name: "copies", help: "Copies to label (default 3000, at most 5000)")
        var copies: Int?
        @Option(name: "catalog", help: "Instead: time the printed catalog of this many titles (A–Z, no covers)")
        var catalog: Int?
    }

    var help: String { "Time the label sheet PDF for 3,000 copies (benchmark helper)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let rounds = max(1, min(signature.rounds ?? 5, 50))
        let count = max(1, min(signature.copies ?? 3_000, LabelSheets.maxLabels))
        let app = context.application
        if let titles = signature.catalog {
            return try await catalog(titles: max(1, min(titles, CatalogSheets.maxTitles)), rounds: rounds, context: context)
        }
        let library = Library(name: "Print bench \(UUID().uuidString.prefix(8))")
        try await app.writeGate.transaction(on: app.db) { db in try await library.create(on: db) }
        let libraryID = try library.requireID()
        do {
            try await Self.fill(libraryID, copies: count, app: app)
            let clock = ContinuousClock()
            let options = LabelSheets.Options(layout: .averyL7160)
            for round in 1...rounds {
                let started = clock.now
                let labels = try await LabelSheets.labels(options, library: libraryID, on: app.db)
                let pdf = try await app.threadPool.runIfActive { try LabelSheets.pdf(labels, options, title: "Bench") }
                let labelsTime = (clock.now - started).seconds
                let previewStarted = clock.now
                let png = try await app.threadPool.runIfActive { try LabelSheets.preview(labels, options, page: 70) }
                let previewTime = (clock.now - previewStarted).seconds
                let pages = options.layout.sheet.pages(count: labels.count)
                let baselineTime = try await Self.baseline(pages: pages, app: app)
                context.console.print("{\"round\": \(round), \"labels\": \(labels.count), \"pages\": \(pages), \"labels_s\": \(String(format: "%.3f", labelsTime)), "
                                      + "\"pdf_bytes\": \(pdf.count), \"preview_s\": \(String(format: "%.3f", previewTime)), \"png_bytes\": \(png.count), "
                                      + "\"baseline_s\": \(String(format: "%.3f", baselineTime))}")
            }
        } catch {
            try? await BenchRemindersCommand.remove(libraryID, app: app)
            throw error
        }
        try await BenchRemindersCommand.remove(libraryID, app: app)
    }

    /// The printed catalog of `titles` titles (A–Z under their letters, no covers): reading them and
    /// laying out the groups, then the PDF; the baseline is as many pages with one line each.
    func catalog(titles: Int, rounds: Int, context: CommandContext) async throws {
        let app = context.application
        let library = Library(name: "Catalog bench \(UUID().uuidString.prefix(8))")
        try await app.writeGate.transaction(on: app.db) { db in try await library.create(on: db) }
        let libraryID = try library.requireID()
        do {
            try await Self.fill(libraryID, copies: titles, app: app)
            let clock = ContinuousClock()
            let t = Strings(lang: .en), options = CatalogSheets.Options()
            for round in 1...rounds {
                let started = clock.now
                let groups = try await CatalogSheets.groups(options, library: libraryID, now: Date(), t: t, on: app.db)
                let readTime = (clock.now - started).seconds
                let pdf = try await app.threadPool.runIfActive { try CatalogSheets.pdf(groups, options, header: "Bench", t: t) }
                let totalTime = (clock.now - started).seconds
                let pages = CatalogSheets.layout(groups, options).pages
                let baselineTime = try await Self.baseline(pages: pages, app: app)
                context.console.print("{\"round\": \(round), \"titles\": \(groups.reduce(0) { $0 + $1.entries.count }), \"pages\": \(pages), "
                                      + "\"catalog_s\": \(String(format: "%.3f", totalTime)), \"read_s\": \(String(format: "%.3f", readTime)), "
                                      + "\"pdf_bytes\": \(pdf.count), \"baseline_s\": \(String(format: "%.3f", baselineTime))}")
            }
        } catch {
            try? await BenchRemindersCommand.remove(libraryID, app: app)
            throw error
        }
        try await BenchRemindersCommand.remove(libraryID, app: app)
    }

    /// The same-run baseline: the seconds a PDF of `pages` pages with one line each takes (what cairo
    /// and pango cost without the labels or the catalog).
    static func baseline(pages: Int, app: Application) async throws -> Double {
        let started = ContinuousClock.now
        _ = try await app.threadPool.runIfActive {
            try PDFDocument.make(size: .a4, title: "Baseline") { pdf in
                for page in 0..<pages {
                    pdf.newPage()
                    pdf.text("Page \(page + 1)", x: 40, y: 40, width: 200)
                }
            }
        }
        return (ContinuousClock.now - started).seconds
    }

    /// `copies` titles with a copy each on one of 30 shelves, a third of them in Irish and in Chinese.
    static func fill(_ library: UUID, copies: Int, app: Application) async throws {
        let now = app.clock.now()
        let names: [(String, String, String)] = [("The Wild Robot", "Peter Brown", "en"), ("An Béal Bocht", "Myles na gCopaleen", "ga"),
                                                 ("西游记", "吴承恩", "zh")]
        try await app.writeGate.transaction(on: app.db) { db in
            let libraryNo = try await LibraryNumber.read(library, on: db.sql)
            for i in 0..<copies {
                let (name, author, language) = names[i % 3]
                let title = Title()
                title.id = UUID()
                title.libraryNo = libraryNo
                title.title = "\(name) \(i)"
                title.authors = [author]
                title.language = language
                title.favorite = false
                title.wishlist = false
                title.refreshDerived()
                try await title.create(on: db)
                try await db.sql.raw("""
                    INSERT INTO copies (id, library_no, title_id, copy_number, barcode, location, status, created_at)
                    VALUES (\(bind: UUID()), \(LibraryNumber.of(library)), \(bind: title.id!), 1, \(bind: Copy.barcode(accession: 900_000 + i)),
                            \(bind: "Shelf \(i % 30 + 1)"), 'available', \(bind: now))
                    """).run()
            }
        }
    }
}
