import Fluent
import FluentSQL
import SQLKit
import Foundation

/// Whether the public catalog shows the library's figures (`libraries.public_figures`, off).
struct AddPublicFigures: AsyncMigration {
    func prepare(on database: any Database) async throws {
        try await database.schema("libraries").field("public_figures", .bool, .required, .sql(.default(false))).update()
    }

    func revert(on database: any Database) async throws {
        try await database.schema("libraries").deleteField("public_figures").update()
    }
}
