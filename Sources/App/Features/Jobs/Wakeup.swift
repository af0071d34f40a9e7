import NIOConcurrencyHelpers

/// A doorbell for one background loop: `ring()` ends the loop's `wait(upTo:)` at once, or the next
/// one if the loop is busy (a ring is never lost); otherwise the wait ends after the given time, or
/// when the task is cancelled. Nothing polls.
final class Wakeup: Sendable {
    private struct State {
        var rung = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }
    private let state = NIOLockedValueBox(State())

    func ring() {
        state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else { s.rung = true; return nil }
            s.waiter = nil
            return waiter
        }?.resume()
    }

    func wait(upTo timeout: Duration) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let generation = state.withLockedValue { s -> Int? in
                    if s.rung || Task.isCancelled { s.rung = false; return nil }
                    s.generation += 1
                    s.waiter = continuation
                    return s.generation
                }
                guard let generation else { return continuation.resume() }
                Task { [self] in
                    try? await Task.sleep(for: timeout)
                    release(generation)
                }
            }
        } onCancel: {
            release(nil)
        }
    }

    /// Resumes the waiter (of `generation`, when given: a timer of an earlier wait does nothing).
    private func release(_ generation: Int?) {
        state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter, generation == nil || generation == s.generation else { return nil }
            s.waiter = nil
            return waiter
        }?.resume()
    }
}
