import Foundation
import ShelfmarkCore
import Vapor

/// `shelfmark bench-spoken`: spoken-number parsing on one core (the target: ≥ 100,000 phrases
/// a second). Prints one JSON line per round: phrases per second, over a mix of the four languages.
struct BenchSpokenCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "rounds", help: "Rounds (default 7)")
        var rounds: Int?
        @Option(name: "phrases", help: "Phrases per round (default 200,000)")
        var phrases: Int?
    }

    var help: String { "Time spoken page-number parsing in four languages (benchmark helper)." }

    static let mix: [(String, SpokenProgress.Language)] = [
        ("page 157", .en), ("one hundred and fifty-seven", .en), ("I'm on page two hundred", .en), ("twenty more pages", .en),
        ("Seite hundertsiebenundfünfzig", .de), ("neuntausendneunhundertneunundneunzig", .de), ("fünfzig Prozent", .de),
        ("leathanach céad caoga a seacht", .ga), ("míle naoi gcéad nócha a naoi", .ga), ("caoga faoin gcéad", .ga),
        ("第一百五十七页", .zh), ("157页", .zh), ("百分之五十", .zh), ("我读到第二百页了", .zh), ("hello there", .en),
    ]

    func run(using context: CommandContext, signature: Signature) async throws {
        let rounds = max(1, min(signature.rounds ?? 7, 100))
        let count = max(1_000, min(signature.phrases ?? 200_000, 10_000_000))
        let clock = ContinuousClock()
        var sink = 0
        for round in 1...rounds {
            let started = clock.now
            for i in 0..<count {
                let (phrase, language) = Self.mix[i % Self.mix.count]
                switch try? SpokenProgress.parse(phrase, language: language) {
                case .page(let n)?, .percent(let n)?, .pagesRead(let n)?: sink &+= n
                case nil: sink &+= 1
                }
            }
            let seconds = Double((clock.now - started).components.attoseconds) / 1e18 + Double((clock.now - started).components.seconds)
            context.console.print("{\"round\": \(round), \"phrases\": \(count), \"phrases_per_second\": \(Int(Double(count) / seconds)), \"check\": \(sink % 1000)}")
        }
    }
}
