import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// `shelfmark seed`: fills a library with realistic synthetic titles, copies and members, for demos
/// and benchmarks. Deterministic for a given `--seed`, so benchmark runs compare like with like.
struct SeedCommand: AsyncCommand {
    struct Signature: CommandSignature {
        @Option(name: "titles", short: "t", help: "Number of titles (default 1000)")
        var titles: Int?
        @Option(name: "members", short: "m", help: "Number of members (default 100)")
        var members: Int?
        @Option(name: "copies", help: "Copies per title (default 1 to 3)")
        var copies: Int?
        @Option(name: "library", short: "l", help: "Library name (default “Demo Library”); created when missing")
        var library: String?
        @Option(name: "owner", short: "o", help: "Username that becomes owner of a new library (default: the first user)")
        var owner: String?
        @Option(name: "seed", help: "Random seed (default 1)")
        var seed: Int?
    }

    var help: String { "Fill a library with synthetic titles and members: `seed --titles 100000 --members 1000`." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let titles = signature.titles ?? 1000
        let members = signature.members ?? 100
        guard (0...5_000_000).contains(titles) else { throw CLIError("--titles must be between 0 and 5000000, got \(titles).") }
        guard (0...1_000_000).contains(members) else { throw CLIError("--members must be between 0 and 1000000, got \(members).") }
        if let copies = signature.copies, !(1...50).contains(copies) { throw CLIError("--copies must be between 1 and 50, got \(copies).") }
        let app = context.application
        let library = try await LibraryLookup.findOrCreate(named: signature.library ?? "Demo Library", gate: app.writeGate, on: app.db)
        let libraryID = try library.requireID()
        let ownerQuery = User.query(on: app.db)
        let owner = try await (signature.owner.map { ownerQuery.filter(\.$username == $0.lowercased()) } ?? ownerQuery.sort(\.$createdAt)).first()
        if signature.owner != nil, owner == nil { throw CLIError("No user named “\(signature.owner!)”. Create it with `shelfmark user create`.") }
        if let owner, try await Membership.query(on: app.db).filter(\.$user.$id == owner.id!).filter(\.$library.$id == libraryID).first() == nil {
            let membership = Membership(userID: owner.id!, libraryID: libraryID, role: .owner)
            try await app.writeGate.transaction(on: app.db) { db in try await membership.create(on: db) }
        }
        var generator = SyntheticLibrary(seed: UInt64(signature.seed ?? 1))
        let start = Date()
        let batch = 1000
        var made = 0
        while made < titles {
            let n = min(batch, titles - made)
            let records = (0..<n).map { _ in generator.title() }
            try await app.writeGate.transaction(on: app.db) { db in
                let models = records.map { record -> Title in
                    let t = Title()
                    t.id = UUID()
                    t.$library.id = libraryID
                    t.isbn13 = record.isbn
                    t.title = record.title
                    t.authors = record.authors
                    t.publisher = record.publisher
                    t.publishedDate = record.year
                    t.pageCount = record.pages
                    t.language = record.language
                    t.favorite = record.favorite
                    t.wishlist = false
                    t.refreshDerived()
                    return t
                }
                try await models.create(on: db)
                var copies: [Copy] = []
                let copyCount = records.reduce(0) { $0 + (signature.copies ?? $1.copies) }
                var accession = try await Catalog.allocateAccessions(copyCount, library: libraryID, on: db)
                for (model, record) in zip(models, records) {
                    for number in 1...(signature.copies ?? record.copies) {
                        copies.append(Copy(libraryID: libraryID, titleID: model.id!, copyNumber: number,
                                           barcode: Copy.barcode(accession: accession), location: record.shelf))
                        accession += 1
                    }
                }
                for chunk in stride(from: 0, to: copies.count, by: 1000) {
                    try await Array(copies[chunk..<min(chunk + 1000, copies.count)]).create(on: db)
                }
                try await Shelves.ensureAll(library: libraryID, on: db)
            }
            made += n
        }
        var memberModels: [Member] = []
        for i in 0..<members {
            let (first, last, grade) = generator.person()
            let m = Member()
            m.$library.id = libraryID
            m.cardID = String(format: "S%05d", i + 1)
            m.firstName = first
            m.lastName = last
            m.grade = grade
            m.refreshDerived()
            memberModels.append(m)
        }
        for chunk in stride(from: 0, to: memberModels.count, by: 1000) {
            let slice = Array(memberModels[chunk..<min(chunk + 1000, memberModels.count)])
            try await app.writeGate.transaction(on: app.db) { db in
                // Card IDs already present (an earlier seed) are left as they are.
                let cards = slice.map(\.cardID)
                let taken = Set(try await Member.query(on: db).filter(\.$library.$id == libraryID).filter(\.$cardID ~~ cards).all().map(\.cardID))
                let fresh = slice.filter { !taken.contains($0.cardID) }
                if !fresh.isEmpty { try await fresh.create(on: db) }
            }
        }
        await app.db.settleAfterBulkLoad(titles: titles, logger: app.logger)
        let seconds = Date().timeIntervalSince(start)
        context.console.print("Seeded “\(library.name)” (\(libraryID.uuidString)): \(titles) titles, \(members) members in \(String(format: "%.1f", seconds)) s.")
    }
}
