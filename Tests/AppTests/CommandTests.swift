@testable import App
import ConsoleKit
import Fluent
import Foundation
import ShelfmarkCore
import Testing
import Vapor

@Suite struct CommandTests {
    private func run(_ command: some AsyncCommand, _ arguments: [String], app: Application) async throws {
        var context = CommandContext(console: Terminal(), input: CommandInput(arguments: ["shelfmark"] + arguments))
        context.application = app
        try await command.run(using: &context)
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
            #expect(try await f.owner.get("\(f.lib)/members?limit=500").array.count == 15)
            let word = try #require((items.first?["title"] as? String)?.split(separator: " ").last.map(String.init))
            let found = try await f.owner.get("\(f.lib)/titles?q=\(SearchText.fold(word).prefix(3))")
            #expect((found["total"] as? Int ?? 0) > 0)
            // A later manual copy continues the accession numbers.
            let more = try await f.owner.post("\(f.lib)/titles", ["title": "After seed"])
            #expect((more["copies"] as? [[String: Any]])?.first?["barcode"] as? String == "C000241")
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
