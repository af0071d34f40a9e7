import Fluent
import Foundation
import ShelfmarkCore
import Vapor

/// What every library-scoped service call needs, as one value: the library (with the user, their
/// role and the loan policy), the moment the request is handled (the app's clock, so tests can move
/// it), the write gate and the database. A request builds it once (`req.scope(.action)` or
/// `req.scope(ctx)`); a job or a command builds it from the application.
struct Scope: Sendable {
    let library: LibraryContext
    let now: Date
    let gate: WriteGate
    let db: any Database

    var libraryID: UUID { library.libraryID }

    init(library: LibraryContext, now: Date, gate: WriteGate, db: any Database) {
        (self.library, self.now, self.gate, self.db) = (library, now, gate, db)
    }

    /// For a job or a command: the application's gate and database, the clock's time now.
    init(library: LibraryContext, app: Application) {
        self.init(library: library, now: app.clock.now(), gate: app.writeGate, db: app.db)
    }
}

extension Request {
    /// The library this request is about, checked for `action`, with this request's moment, gate and database.
    func scope(_ action: Role.Action) async throws -> Scope {
        scope(try await library(action))
    }

    func scope(_ library: LibraryContext) -> Scope {
        Scope(library: library, now: now, gate: application.writeGate, db: db)
    }
}
