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
    /// The same clock `now` was read from, read again: for an event stamped when it happens inside a
    /// write (a loan starts when its copy is claimed), not when the request arrived.
    let clock: AppClock
    /// A sync push's reads made once and writes kept for its end (`PushBatch`); nil everywhere else.
    let batch: PushBatch?

    var libraryID: UUID { library.libraryID }

    /// `clock` defaults to one that starts at `now` and runs on from there.
    init(library: LibraryContext, now: Date, gate: WriteGate, db: any Database, clock: AppClock? = nil, batch: PushBatch? = nil) {
        (self.library, self.now, self.gate, self.db, self.batch) = (library, now, gate, db, batch)
        let start = ContinuousClock.now
        self.clock = clock ?? AppClock(now: { now.addingTimeInterval(start.duration(to: .now).seconds) })
    }

    /// For a job or a command: the application's gate and database, the clock's time now.
    init(library: LibraryContext, app: Application) {
        self.init(library: library, now: app.clock.now(), gate: app.writeGate, db: app.db, clock: app.clock)
    }

    /// This moment, on the clock `now` came from.
    func moment() -> Date { clock.now() }
}

extension Request {
    /// The library this request is about, checked for `action`, with this request's moment, gate and database.
    func scope(_ action: Role.Action) async throws -> Scope {
        scope(try await library(action))
    }

    func scope(_ library: LibraryContext) -> Scope {
        Scope(library: library, now: now, gate: application.writeGate, db: db, clock: application.clock)
    }
}
