import Foundation
import NIOConcurrencyHelpers
import Vapor

/// Runs enrichment jobs in the background of `shelfmark serve`: wakes at once when this process
/// queues a job (`nudge()` rings its `Wakeup`), else every few seconds (other instances on the same
/// PostgreSQL may have queued work, and failed jobs come due again).
final class EnrichmentWorker: LifecycleHandler, @unchecked Sendable {
    let owner = "\(ProcessInfo.processInfo.hostName)#\(ProcessInfo.processInfo.processIdentifier)#\(UUID().uuidString.prefix(8))"
    private let wakeup = Wakeup()
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)
    let pollInterval: Duration

    init(pollInterval: Duration = .seconds(5)) {
        self.pollInterval = pollInterval
    }

    func nudge() { wakeup.ring() }

    func didBootAsync(_ app: Application) async throws {
        let owner = owner
        let loop = Task { [self] in
            while !Task.isCancelled {
                do {
                    try await Enrichment.drain(app: app, owner: owner, limit: 50)
                } catch {
                    if Task.isCancelled { break }
                    app.logger.warning("enrichment worker: \(String(describing: error))")
                }
                await wakeup.wait(upTo: pollInterval)
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
    private struct EnrichmentWorkerKey: StorageKey { typealias Value = EnrichmentWorker }

    /// The worker of this process, when it runs one (`serve`).
    var enrichmentWorker: EnrichmentWorker? {
        get { storage[EnrichmentWorkerKey.self] }
        set { storage[EnrichmentWorkerKey.self] = newValue }
    }

    /// Starts the background worker (registered before boot).
    func useEnrichmentWorker(_ worker: EnrichmentWorker = EnrichmentWorker()) {
        enrichmentWorker = worker
        lifecycle.use(worker)
    }
}
