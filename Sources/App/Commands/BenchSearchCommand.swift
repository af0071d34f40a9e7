import Fluent
import Foundation
import Vapor

/// `shelfmark bench-search`: times title search in-process (server side, no HTTP) for as-you-type
/// prefixes, and prints p50/p99 per round as JSON lines for `make bench`.
struct BenchSearchCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "library", short: "l", help: "Library name")
        var library: String?
        @Option(name: "rounds", help: "Rounds (default 5)")
        var rounds: Int?
        @Option(name: "repeat", help: "Times each prefix is searched per round (default 20)")
        var repetitions: Int?
    }

    var help: String { "Time title search over as-you-type prefixes (benchmark helper)." }

    /// What people type, letter by letter, into the search box: words from titles and author
    /// names of the synthetic catalog, multi-word queries and ISBN prefixes.
    static let prefixes = [
        "ga", "gar", "gard", "garde", "garden", "ri", "riv", "rive", "river", "si", "sil", "sile", "silent",
        "silent g", "silent ga", "silent gar", "lo", "lov", "love", "lovel", "mu", "mul", "mull", "muller",
        "dra", "drag", "dragon", "the", "the c", "the cr", "the cro", "eamo", "siob", "978", "9780", "97801",
        "chen", "tana", "wild fo", "wild fox", "lighth", "lighthouse", "beyond", "beyond the", "eloge",
    ]

    func run(using context: CommandContext, signature: Signature) async throws {
        let app = context.application
        guard let library = try await Library.query(on: app.db).filter(\.$name == (signature.library ?? "Demo Library")).first() else {
            throw CLIError("No library named “\(signature.library ?? "Demo Library")”.")
        }
        let libraryID = try library.requireID()
        let rounds = max(1, signature.rounds ?? 5)
        let repetitions = max(1, signature.repetitions ?? 20)
        let clock = ContinuousClock()
        var hits = 0
        for prefix in Self.prefixes {  // warm the page cache once
            var filters = TitleQuery.Filters()
            filters.query = prefix
            hits += try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db).total
        }
        var perPrefix: [String: [Double]] = [:]
        for round in 1...rounds {
            var samples: [Double] = []
            for _ in 0..<repetitions {
                for prefix in Self.prefixes {
                    var filters = TitleQuery.Filters()
                    filters.query = prefix
                    let start = clock.now
                    _ = try await TitleQuery.list(filters, libraryID: libraryID, now: Date(), on: app.db)
                    let elapsed = clock.now - start
                    let ms = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
                    samples.append(ms)
                    perPrefix[prefix, default: []].append(ms)
                }
            }
            samples.sort()
            func pct(_ p: Double) -> Double { samples[min(samples.count - 1, Int((Double(samples.count) * p).rounded(.up)) - 1)] }
            context.console.print(#"{"round": \#(round), "queries": \#(samples.count), "p50_ms": \#(pct(0.5)), "p99_ms": \#(pct(0.99)), "max_ms": \#(samples.last!)}"#)
        }
        _ = hits
        for prefix in Self.prefixes {
            let sorted = perPrefix[prefix]!.sorted()
            context.console.print(#"{"prefix": "\#(prefix)", "median_ms": \#(sorted[sorted.count / 2])}"#)
        }
    }
}
