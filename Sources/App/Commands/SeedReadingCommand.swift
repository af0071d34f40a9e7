import Fluent
import Foundation
import ShelfmarkCore
import ShelfmarkImaging
import Vapor

/// `shelfmark seed-reading`: a reader's synthetic history for benchmarks and demos — reads of the
/// library's titles over the past years (finished, current, wanted, stopped) with page-by-page
/// progress events: `seed-reading --library School --user bench --reads 2000 --events 50000`.
struct SeedReadingCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "library", short: "l", help: "Library name")
        var library: String?
        @Option(name: "user", short: "u", help: "Username of the reader")
        var user: String?
        @Option(name: "reads", help: "Number of reads (default 2000)")
        var reads: Int?
        @Option(name: "events", help: "Number of progress events over all reads (default 50000)")
        var events: Int?
        @Option(name: "photo", help: "Write a synthetic 12-megapixel page photo (JPEG) to this file instead")
        var photo: String?
    }

    var help: String { "Fill a reader's history with synthetic reads and progress (benchmark helper)." }

    func run(using context: CommandContext, signature: Signature) async throws {
        if let path = signature.photo {
            try PageImage.syntheticPhoto(width: 4000, height: 3000).write(to: URL(fileURLWithPath: path))
            context.console.print("wrote \(path)")
            return
        }
        let app = context.application
        let readCount = signature.reads ?? 2000, eventCount = signature.events ?? 50_000
        guard (1...100_000).contains(readCount), (0...5_000_000).contains(eventCount) else {
            throw CLIError("--reads is 1–100000 and --events 0–5000000.")
        }
        guard let library = try await Library.query(on: app.db).filter(\.$name == (signature.library ?? "Demo Library")).first() else {
            throw CLIError("No library named “\(signature.library ?? "Demo Library")”.")
        }
        guard let user = try await User.query(on: app.db).filter(\.$username == (signature.user ?? "").lowercased()).first() else {
            throw CLIError("No user named “\(signature.user ?? "")”.")
        }
        let libraryID = try library.requireID(), userID = try user.requireID()
        let titles = try await Title.query(on: app.db).inLibrary(libraryID).filter(\.$wishlist == false)
            .limit(readCount).all()
        guard !titles.isEmpty else { throw CLIError("The library has no titles: seed some first.") }
        let now = Date()
        let perRead = max(1, eventCount / readCount)
        let zone = Library.zone(library.timeZone)
        var made = 0, events = 0
        while made < readCount {
            let batch = min(200, readCount - made)
            let base = made
            events += try await app.writeGate.transaction(on: app.db) { db in
                var rng = SystemRandomNumberGenerator()
                var events = 0
                for i in 0..<batch {
                    let n = base + i
                    let title = titles[n % titles.count]
                    let pages = title.pageCount ?? 250
                    let status: ReadStatus = n % 20 == 0 ? .reading : n % 25 == 1 ? .wantToRead : n % 30 == 2 ? .didNotFinish : .finished
                    let start = now.addingTimeInterval(-Double(Int.random(in: 1...1_400, using: &rng)) * 86_400)
                    let read = Read(library: libraryID, reader: .user(userID), titleID: title.id, title: title.title, author: title.authors.first,
                                    pageCount: pages, status: status, at: start)
                    read.startedAt = status == .wantToRead ? nil : start
                    try await read.create(on: db)
                    var last = start
                    var previous = 0
                    if status != .wantToRead {
                        for e in 1...perRead {
                            let event = ProgressEvent()
                            event.id = UUID()
                            event.$read.id = read.id!
                            last = start.addingTimeInterval(Double(e) * 36_000)
                            event.at = last
                            event.unit = ProgressUnit.page.rawValue
                            event.value = min(pages, pages * e / perRead - (status == .finished ? 0 : 1))
                            event.createdAt = last
                            event.day = ReadingRules.dayNumber(last, in: zone)
                            event.gain = max(0, (event.value ?? 0) - previous)
                            previous = max(previous, event.value ?? 0)
                            try await event.create(on: db)
                            events += 1
                        }
                    }
                    if status == .finished { read.finishedAt = last; read.rating = Double(Int.random(in: 2...10, using: &rng)) / 2 }
                    if status == .didNotFinish { read.finishedAt = last }
                    read.progressPage = status == .wantToRead ? nil : (status == .finished ? pages : pages - 1)
                    read.progressFraction = read.progressPage.map { Double($0) / Double(pages) }
                    read.lastProgressAt = status == .wantToRead ? nil : last
                    try await read.save(on: db)
                }
                return events
            }
            made += batch
        }
        try await app.writeGate.transaction(on: app.db) { db in try await ReadingDays.recount(library: libraryID, on: db.sql) }
        context.console.print("seeded \(made) reads and \(events) progress events for \(user.username)")
    }
}
