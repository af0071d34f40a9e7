import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
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
        @Option(name: "loans", help: "Past loans, all returned, spread over the last --loan-years (default 0)")
        var loans: Int?
        @Option(name: "loan-years", help: "The years the past loans are spread over (default 1)")
        var loanYears: Int?
    }

    var help: String { "Fill a library with synthetic titles and members: `seed --titles 100000 --members 1000`." }

    func run(using context: CommandContext, signature: Signature) async throws {
        let titles = signature.titles ?? 1000
        let members = signature.members ?? 100
        guard (0...5_000_000).contains(titles) else { throw CLIError("--titles must be between 0 and 5000000, got \(titles).") }
        guard (0...1_000_000).contains(members) else { throw CLIError("--members must be between 0 and 1000000, got \(members).") }
        if let copies = signature.copies, !(1...50).contains(copies) { throw CLIError("--copies must be between 1 and 50, got \(copies).") }
        let loans = signature.loans ?? 0, loanYears = signature.loanYears ?? 1
        guard (0...10_000_000).contains(loans) else { throw CLIError("--loans must be between 0 and 10000000, got \(loans).") }
        guard (1...20).contains(loanYears) else { throw CLIError("--loan-years must be between 1 and 20, got \(loanYears).") }
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
        // Rows as an import writes them (`BulkInsert`, one COPY per table on PostgreSQL), with ids made in
        // order as the import makes them; each batch of titles and their copies is one transaction.
        let batch = 5_000
        var made = 0
        var ids = UUIDSource()
        while made < titles {
            let n = min(batch, titles - made)
            let records = (0..<n).map { _ in generator.title() }
            let now = Date()
            let rows = try records.map { record -> TitleRow in
                var r = ImportRecord(line: 0)
                (r.isbn, r.title, r.authors, r.publisher) = (record.isbn, record.title, record.authors, record.publisher)
                (r.publishedDate, r.pageCount, r.language, r.callNumber) = (record.year, record.pages, record.language, record.callNumber)
                var row = try TitleRow(importing: r, id: ids.next(), now: now)
                row.favorite = record.favorite
                return row
            }
            let shelved = zip(rows, records).map { (title: $0.id, copies: signature.copies ?? $1.copies, location: Optional($1.shelf)) }
            try await app.writeGate.transaction(on: app.db) { db in
                let no = try await LibraryNumber.read(libraryID, on: db.sql)
                try await BulkInsert.run("titles", columns: TitleRow.insertColumns, rows: rows, values: { $0.values(library: no) }, on: db)
                let first = try await Catalog.allocateAccessions(shelved.reduce(0) { $0 + $1.copies }, library: libraryID, on: db).first
                var copyIDs = UUIDSource()
                let copies = CopyRow.fresh(shelved, firstAccession: first, now: now, ids: &copyIDs)
                try await BulkInsert.run("copies", columns: CopyRow.insertColumns, rows: copies, values: { $0.values(library: no) }, on: db)
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
        if loans > 0 {
            try await seedLoans(loans, years: loanYears, library: libraryID, generator: &generator, app: app)
        }
        await app.db.settleAfterBulkLoad(titles: titles, logger: app.logger)
        let seconds = Date().timeIntervalSince(start)
        context.console.print("Seeded “\(library.name)” (\(libraryID.uuidString)): \(titles) titles, \(members) members"
            + (loans > 0 ? ", \(loans) past loans" : "") + " in \(String(format: "%.1f", seconds)) s.")
    }

    /// A history of `count` loans over the last `years`, all returned (the copies stay on the shelf):
    /// a random copy to a random member of the library, lent for 14 days and back after 1 to 24 (some
    /// late), each with the member's card, name and class as a check-out writes them; the titles'
    /// loan counts and the reports' tallies follow. For reports at a school's size and their benchmarks.
    private func seedLoans(_ count: Int, years: Int, library: UUID, generator: inout SyntheticLibrary, app: Application) async throws {
        struct CopyRow: Decodable { var id: UUID; var title_id: UUID; var title: String }
        struct MemberRow: Decodable { var id: UUID; var card_id: String; var first_name: String; var last_name: String; var grade: String? }
        let copies = try await app.db.sql.raw("""
            SELECT c.id, c.title_id, t.title FROM copies c JOIN titles t ON t.id = c.title_id WHERE c.library_no = \(LibraryNumber.of(library))
            """).all(decoding: CopyRow.self)
        let members = try await app.db.sql.raw("""
            SELECT id, card_id, first_name, last_name, grade FROM members WHERE library_id = \(bind: library)
            """).all(decoding: MemberRow.self)
        guard !copies.isEmpty, !members.isEmpty else { throw CLIError("--loans needs titles and members in the library.") }
        let now = Date(), span = Double(years) * 365 * 86_400
        let libraryNo = try await LibraryNumber.read(library, on: app.db.sql)
        let columns = ["id", "library_no", "copy_id", "title_id", "member_id", "title_text", "member_card_id", "member_name", "checked_out_at",
                       "due_at", "returned_at", "renewals", "checked_out_by", "member_grade"]
        var made = 0
        while made < count {
            let n = min(5_000, count - made)
            var rows: [[BulkInsert.Value]] = []
            rows.reserveCapacity(n)
            for _ in 0..<n {
                let copy = generator.pick(copies), member = generator.pick(members)
                // Lent at least 25 days ago, so every loan is back by now.
                let lent = now.addingTimeInterval(-25 * 86_400 - Double(generator.next() % UInt64(span)))
                let back = lent.addingTimeInterval(Double(generator.int(1...24)) * 86_400)
                rows.append([.uuid(UUID()), .integer(libraryNo), .uuid(copy.id), .uuid(copy.title_id), .uuid(member.id), .text(copy.title),
                             .text(member.card_id), .text(Member.fullName(first: member.first_name, last: member.last_name)),
                             .date(lent), .date(lent.addingTimeInterval(14 * 86_400)), .date(back), .integer(generator.int(0...9) == 0 ? 1 : 0),
                             .text("seed"), .text(member.grade)])
            }
            let batch = rows
            try await app.writeGate.transaction(on: app.db) { db in
                try await BulkInsert.run("loans", columns: columns, rows: batch, values: { $0 }, on: db)
            }
            made += n
        }
        // The titles' loan counts follow the loans' own triggers; the reports' tallies are counted once.
        try await app.writeGate.transaction(on: app.db) { db in try await LoanTallies.recount(library: library, on: db.sql) }
    }
}
