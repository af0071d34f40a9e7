@testable import App
import ConsoleKit
import Fluent
import Foundation
import ShelfmarkCore
import SQLKit
import Testing
import Vapor

@Suite struct CommandTests {
    private func run(_ command: some AsyncCommand, _ arguments: [String], app: Application) async throws {
        var context = CommandContext(console: Terminal(), input: CommandInput(arguments: ["shelfmark"] + arguments))
        context.application = app
        try await command.run(using: &context)
    }

    /// `shelfmark --help` and `shelfmark routes` read no data: they run on an in-memory database and
    /// create no `data/shelfmark.sqlite` where they are started.
    @Test func helpAndRoutesReadNoData() {
        #expect(commandReadsNoData(["shelfmark", "routes"]))
        #expect(commandReadsNoData(["shelfmark", "--help"]))
        #expect(commandReadsNoData(["shelfmark", "seed", "--help"]))
        #expect(!commandReadsNoData(["shelfmark"]))
        #expect(!commandReadsNoData(["shelfmark", "serve", "--port", "8080"]))
        #expect(!commandReadsNoData(["shelfmark", "seed", "--titles", "10"]))
    }

    @Test func seedFillsALibraryWithSearchableTitlesAndMembers() async throws {
        try await withTestApp { app in
            // setup
            let f = try await Fixture.make(app)
            // MUT
            try await run(SeedCommand(), ["--titles", "120", "--members", "15", "--library", "Room 12", "--copies", "2"], app: app)
            // validate
            let list = try await f.owner.get("\(f.lib)/titles?limit=500&sections=true")
            #expect(list["total"] as? Int == 120)
            let items = try #require(list["items"] as? [[String: Any]])
            #expect(items.allSatisfy { ($0["availability"] as? [String: Any])?["total"] as? Int == 2 })
            #expect(items.allSatisfy { ($0["isbn13"] as? String)?.count == 13 })
            #expect(try await Copy.query(on: app.db).count() == 240)
            #expect(Set(try await Copy.query(on: app.db).all().map(\.barcode)).count == 240)
            // Every title has its call number and derived keys, every copy its shelf, as a title added by hand would.
            let titles = try await Title.query(on: app.db).all()
            #expect(titles.allSatisfy { $0.callNumber != nil && !$0.callNumberSort.isEmpty && !$0.sortKey.isEmpty && $0.authorKey != "~" })
            #expect(try await Copy.query(on: app.db).all().allSatisfy { $0.location != nil && $0.status == "available" })
            #expect(try await f.owner.get("\(f.lib)/members?limit=500").array.count == 15)
            let word = try #require((items.first?["title"] as? String)?.split(separator: " ").last.map(String.init))
            let found = try await f.owner.get("\(f.lib)/titles?q=\(SearchText.fold(word).prefix(3))")
            #expect((found["total"] as? Int ?? 0) > 0)
            // A later manual copy continues the accession numbers.
            let more = try await f.owner.post("\(f.lib)/titles", ["title": "After seed"])
            let copies = more["copies"] as? [[String: Any]]
            #expect(copies?.first?["barcode"] as? String == "C000241")
        }
    }

    @Test func seededLoansAreCountedOnTheirTitlesAndAllReturned() async throws {
        try await withTestApp { app in
            // setup
            _ = try await Fixture.make(app)
            // MUT
            try await run(SeedCommand(), ["--titles", "40", "--members", "5", "--library", "Room 12", "--copies", "1", "--loans", "300"], app: app)
            // validate
            struct Counted: Decodable { var id: UUID; var loan_count: Int; var open_loans: Int; var lent: Int }
            let titles = try await app.db.sql.raw("""
                SELECT t.id, t.loan_count, t.open_loans, (SELECT COUNT(*) FROM loans l WHERE l.title_id = t.id) AS lent FROM titles t
                """).all(decoding: Counted.self)
            #expect(titles.count == 40)
            #expect(titles.reduce(0) { $0 + $1.loan_count } == 300)
            #expect(titles.allSatisfy { $0.loan_count == $0.lent && $0.open_loans == 0 })
            #expect(try await Loan.query(on: app.db).filter(\.$returnedAt == nil).count() == 0)
        }
    }

    @Test func seedAndUserCreateRefuseBadArguments() async throws {
        try await withTestApp { app in
            await #expect(throws: CLIError.self) { try await run(SeedCommand(), ["--titles", "9999999"], app: app) }
            await #expect(throws: CLIError.self) {
                try await run(UserCommand(), ["create", "--username", "x", "--password", "longenough", "--role", "king"], app: app)
            }
            let weak = await #expect(throws: CLIError.self) {
                try await run(UserCommand(), ["create", "--username", "x", "--password", "short"], app: app)
            }
            #expect(weak?.description.contains("at least 8 characters") == true)
            try await run(UserCommand(), ["create", "--username", "Lib", "--password", "longenough", "--library", "Annex", "--role", "librarian"], app: app)
            let membership = try #require(try await Membership.query(on: app.db).with(\.$user).with(\.$library).first())
            #expect(membership.user.username == "lib")
            #expect(membership.library.name == "Annex")
            #expect(membership.role == .librarian)
        }
    }
}

@Suite struct ISBNCheckTests {
    @Test func printsOneTabSeparatedLinePerInput() {
        var lines: [String] = []
        ISBNCheck.run(["0-306-40615-2", "9791034304561", "9780306406158"], print: { lines.append($0) })
        #expect(lines == [
            "0-306-40615-2\tvalid\t9780306406157\t0306406152\t978-0-306-40615-7",
            "9791034304561\tvalid\t9791034304561\t-\t979-10-343-0456-1",
            "9780306406158\tinvalid\tthe check digit does not match: a digit is mistyped",
        ])
    }

    @Test func readsStandardInputWhenGivenNoArguments() {
        var input = ["ISBN 0-8044-2957-X", "", "12345"]
        var lines: [String] = []
        ISBNCheck.run([], readLine: { input.isEmpty ? nil : input.removeFirst() }, print: { lines.append($0) })
        #expect(lines.count == 2)
        #expect(lines[0].hasSuffix("\tvalid\t9780804429573\t080442957X\t978-0-8044-2957-3"))
        #expect(lines[1] == "12345\tinvalid\tan ISBN has 10 or 13 digits (plus a 2- or 5-digit add-on), this has 5")
    }

    /// `shelfmark restore FILE --library X` and `import --library NEW` make libraries someone owns
    /// (the administrator, or `--owner`), written readable by their owner only.
    @Test func commandLineLibrariesHaveAnOwnerAndBackupsArePrivate() async throws {
        func run(_ command: some AsyncCommand, _ arguments: [String], app: Application) async throws {
            var context = CommandContext(console: Terminal(), input: CommandInput(arguments: ["shelfmark"] + arguments))
            context.application = app
            try await command.run(using: &context)
        }
        try await withTestApp { app in
            let f = try await Fixture.make(app)
            try await f.addTitle("Momo", copies: 1)
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("shelfmark-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("backup.json").path
            try await run(BackupCommand(), ["--library", "Room 12", "--output", file], app: app)
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(mode == 0o600, "\(String(mode ?? 0, radix: 8))")

            try await run(RestoreCommand(), [file, "--library", "Restored"], app: app)
            let libraries = try await f.owner.get("/api/v1/libraries").array.compactMap { $0["name"] as? String }
            #expect(libraries.contains("Restored"), "\(libraries)")

            let list = dir.appendingPathComponent("isbns.txt")
            try Data("9783522202602\n9780306406157\n".utf8).write(to: list)
            _ = try await f.staff("lena", role: "librarian")
            try await run(ImportCommand(), [list.path, "--library", "Lena's shelf", "--owner", "lena", "--format", "isbn-list"], app: app)
            // One job per library holds for the command line: while a job writes the library, the
            // import is refused with why; it runs as a job the library's page shows.
            let lenas = try #require(try await Library.query(on: app.db).filter(\.$name == "Lena's shelf").first()?.requireID())
            let running = try await Jobs.begin(.restore, library: lenas, target: lenas, user: nil, now: app.clock.now(), app: app)
            await #expect(throws: CLIError.self) {
                try await run(ImportCommand(), [list.path, "--library", "Lena's shelf", "--format", "isbn-list"], app: app)
            }
            try await Jobs.finish(running, result: nil as String?, failure: nil, app: app)
            try await run(ImportCommand(), [list.path, "--library", "Lena's shelf", "--format", "isbn-list"], app: app)
            let kinds = try await app.db.sql.raw("SELECT kind, state FROM jobs WHERE target_library_id = \(bind: lenas) ORDER BY created_at")
                .all().map { "\(try $0.decode(column: "kind", as: String.self)) \(try $0.decode(column: "state", as: String.self))" }
            #expect(kinds.filter { $0.hasPrefix("import") } == ["import done", "import done"], "\(kinds)")
            let lena = try await Membership.query(on: app.db).join(User.self, on: \Membership.$user.$id == \User.$id)
                .filter(User.self, \.$username == "lena").all()
            #expect(lena.count == 2)
        }
    }

    @Test func aReRunImportSumsUpItsSkippedRows() {
        let notes = (1...100_000).map { ImportRowNote(line: $0 + 1, title: nil, reason: "ISBN 978-0-306-\($0) is already in the library") }
        let lines = ImportCommand.noteLines(notes, verb: "skipped", unit: "line")
        #expect(lines.count == 22, "\(lines.suffix(3))")
        #expect(lines.last == "      99980 × ISBN … is already in the library")
    }
}
