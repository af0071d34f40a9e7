import NIOConcurrencyHelpers
import Vapor

/// One loop of background work in `shelfmark serve`: it prepares once at boot, then runs a round,
/// waits until its doorbell rings or the time the round asked for has passed (at most `longestWait`),
/// and again, until the server stops. A round that fails is logged and the loop goes on. The
/// scheduler of recurring jobs and the enrichment and mail workers are each one; features declare
/// theirs (`Feature.backgroundLoops`).
final class BackgroundLoop: LifecycleHandler, Sendable {
    typealias Round = @Sendable (Application) async throws -> Duration

    let name: String
    let longestWait: Duration
    private let doorbell: Wakeup
    private let prepare: @Sendable (Application) async throws -> Void
    private let round: Round
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// `round` returns how long to wait before the next one when nothing rings.
    init(_ name: String, longestWait: Duration, doorbell: Wakeup = Wakeup(),
         prepare: @escaping @Sendable (Application) async throws -> Void = { _ in }, round: @escaping Round) {
        (self.name, self.longestWait, self.doorbell, self.prepare, self.round) = (name, longestWait, doorbell, prepare, round)
    }

    /// Ends the loop's wait at once (or the next one, when it is busy).
    func ring() { doorbell.ring() }

    /// Background work writes: while the database is open for reading only (a full disk at start,
    /// `FullDiskStart`), the loop prepares and runs once it is writable again, and the server starts.
    func didBootAsync(_ app: Application) async throws {
        var prepared = false
        if !app.storageHealth.readOnly {
            try await prepare(app)
            prepared = true
        }
        let loop = Task { [self, prepared] in
            var isPrepared = prepared
            while !Task.isCancelled {
                if app.storageHealth.readOnly {
                    await doorbell.wait(upTo: min(longestWait, .seconds(10)))
                    continue
                }
                var wait = longestWait
                do {
                    if !isPrepared {
                        try await prepare(app)
                        isPrepared = true
                    }
                    wait = min(longestWait, try await round(app))
                } catch {
                    if Task.isCancelled { break }
                    app.logger.warning("\(name): \(String(describing: error))")
                }
                await doorbell.wait(upTo: wait)
            }
        }
        task.withLockedValue { $0 = loop }
    }

    func shutdownAsync(_ application: Application) async {
        let running = task.withLockedValue { t -> Task<Void, Never>? in let r = t; t = nil; return r }
        running?.cancel()
        await running?.value
    }
}

extension Application {
    private struct BackgroundLoopsKey: StorageKey { typealias Value = [String: BackgroundLoop] }

    /// The loops this process runs, by name (none in one-off commands and most tests).
    var backgroundLoops: [String: BackgroundLoop] {
        get { storage[BackgroundLoopsKey.self] ?? [:] }
        set { storage[BackgroundLoopsKey.self] = newValue }
    }

    /// Runs `loop` from boot to shutdown (registered before boot).
    func run(_ loop: BackgroundLoop) {
        backgroundLoops[loop.name] = loop
        lifecycle.use(loop)
    }

    /// Runs every feature's background loops (`serve`).
    func runBackgroundLoops() {
        for feature in Features.all { for loop in feature.backgroundLoops() { run(loop) } }
    }
}
