import Foundation
import Vapor

/// The app's notion of now. Tests move it to make loans overdue without waiting two weeks.
struct AppClock: Sendable {
    var now: @Sendable () -> Date = { Date() }
}

extension Application {
    private struct ClockKey: StorageKey { typealias Value = AppClock }

    var clock: AppClock {
        get { storage[ClockKey.self] ?? AppClock() }
        set { storage[ClockKey.self] = newValue }
    }
}

extension Request {
    var now: Date { application.clock.now() }
}
