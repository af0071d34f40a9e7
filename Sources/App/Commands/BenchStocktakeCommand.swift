import Fluent
import Foundation
import Plot
import ShelfmarkCore
import SQLKit
import Vapor

/// `shelfmark bench-stocktake`: the stocktake target, on a library made for the run and removed
/// after it: 20,000 titles on shelves, one shelf of 300 books. Each round starts a stocktake of that
/// shelf and scans its 300 books, 20 books of other shelves and 5 unknown codes; it times each scan
/// (the API's answer: the service call, its transaction included), the page the browser is sent back
/// to after each scan (the report and its HTML, at the round's end, 300 scanned), and — the same-run
/// baseline — the cheapest read a scan makes (a copy by its barcode). Prints one JSON line per round.
struct BenchStocktakeCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "rounds", help: "Rounds (default 5)")
        var rounds: Int?
        @Option(name: "titles", help: "Titles in the library (default 20000)")
        var titles: Int?
    }

    var help: String { "Time the scans of a stocktake at a 300-book shelf (benchmark helper)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let rounds = max(1, min(signature.rounds ?? 5, 50))
        let titles = max(400, min(signature.titles ?? 20_000, 200_000))
        let app = context.application
        let library = Library(name: "Stocktake bench \(UUID().uuidString.prefix(8))")
        try await app.writeGate.transaction(on: app.db) { db in try await library.create(on: db) }
        let libraryID = try library.requireID()
        do {
            try await BenchPrintCommand.fill(libraryID, copies: titles, app: app)
            // The shelf of 300: the first 300 copies, A–Z by barcode.
            try await app.writeGate.transaction(on: app.db) { db in
                try await db.sql.raw("""
                    UPDATE copies SET location = 'Bench shelf' WHERE id IN
                    (SELECT id FROM copies WHERE library_no = \(LibraryNumber.of(libraryID)) ORDER BY barcode LIMIT 300)
                    """).run()
                try await Shelves.ensureAll(library: libraryID, on: db)
            }
            let ctx = try CommandLibrary.context(library)
            guard let shelfID = try await Shelves.id(named: "Bench shelf", library: libraryID, on: app.db) else { throw CLIError("The bench shelf was not made.") }
            let onShelf = try await app.db.sql.raw("SELECT barcode FROM copies WHERE library_no = \(LibraryNumber.of(libraryID)) AND location = 'Bench shelf' ORDER BY barcode")
                .all().map { try $0.decode(column: "barcode", as: String.self) }
            let elsewhere = try await app.db.sql.raw("""
                SELECT barcode FROM copies WHERE library_no = \(LibraryNumber.of(libraryID)) AND location <> 'Bench shelf' ORDER BY barcode LIMIT 20
                """).all().map { try $0.decode(column: "barcode", as: String.self) }
            let codes = onShelf + elsewhere + (1...5).map { "NOT-IN-CATALOG-\($0)" }
            let clock = ContinuousClock()
            func ms(_ d: Duration) -> Double { Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15 }
            func pct(_ samples: [Double], _ p: Double) -> Double {
                let sorted = samples.sorted()
                return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
            }
            let t = Strings(lang: .en)
            for round in 1...rounds {
                let scope = Scope(library: ctx, app: app)
                let stocktake = try await Stocktakes.start(shelf: shelfID, in: scope)
                var scans: [Double] = [], baseline: [Double] = []
                for code in codes.shuffled() {
                    let started = clock.now
                    _ = try await Lookup.copy(barcode: code, library: libraryID, on: app.db)
                    baseline.append(ms(clock.now - started))
                    let scanStarted = clock.now
                    _ = try await Stocktakes.scan(stocktake.id, code, in: Scope(library: ctx, app: app))
                    scans.append(ms(clock.now - scanStarted))
                }
                var pages: [Double] = []
                var bytes = 0
                for _ in 0..<20 {
                    let started = clock.now
                    let report = try await Stocktakes.report(stocktake.id, library: libraryID, on: app.db)
                    let html = StocktakePage(libraryID: libraryID, report: report)
                        .render(PageContext(t: t, csrf: "bench", path: "/", user: nil, library: nil)).render()
                    pages.append(ms(clock.now - started))
                    bytes = html.utf8.count
                }
                _ = try await Stocktakes.finish(stocktake.id, in: scope)
                context.console.print("{\"round\": \(round), \"scans\": \(scans.count), \"scan_p50_ms\": \(String(format: "%.2f", pct(scans, 0.5))), "
                                      + "\"scan_p99_ms\": \(String(format: "%.2f", pct(scans, 0.99))), \"scan_max_ms\": \(String(format: "%.2f", scans.max()!)), "
                                      + "\"page_p50_ms\": \(String(format: "%.2f", pct(pages, 0.5))), \"page_p99_ms\": \(String(format: "%.2f", pct(pages, 0.99))), "
                                      + "\"page_bytes\": \(bytes), \"baseline_p50_ms\": \(String(format: "%.3f", pct(baseline, 0.5))), "
                                      + "\"baseline_p99_ms\": \(String(format: "%.3f", pct(baseline, 0.99)))}")
            }
        } catch {
            try? await BenchRemindersCommand.remove(libraryID, app: app)
            throw error
        }
        try await BenchRemindersCommand.remove(libraryID, app: app)
    }
}
