import Foundation
import Vapor

/// The app's notion of now. Tests move it to make loans overdue without waiting two weeks.
struct AppClock: Sendable {
    var now: @Sendable () -> Date = { Date() }

    /// `SHELFMARK_CLOCK_OFFSET_DAYS=30` runs the server 30 days ahead (or behind, when negative): for
    /// demos and end-to-end tests of overdue loans without waiting. Unset in normal use.
    static func fromEnvironment(_ env: [String: String] = ProcessInfo.processInfo.environment) throws -> AppClock {
        guard let raw = env["SHELFMARK_CLOCK_OFFSET_DAYS"], !raw.isEmpty else { return AppClock() }
        guard let days = Double(raw), abs(days) <= 3650 else {
            throw AppError.invalid("SHELFMARK_CLOCK_OFFSET_DAYS", "SHELFMARK_CLOCK_OFFSET_DAYS is a number of days (got “\(raw)”).")
        }
        let offset = days * 86_400
        return AppClock(now: { Date().addingTimeInterval(offset) })
    }
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

extension Duration {
    /// The duration in seconds, for timings and for moving a request's `now` by the time it waited.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
