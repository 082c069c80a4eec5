#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Life actions (held in protect mode, performed later) and causes an external reporter saw.
extension LaunchOrganizer {
  /// Normal mode: runs `action` now. Protect mode: runs `protect` (if any) now and holds
  /// `action` for `performAction(key:)`. Each action runs at most once.
  public func addLifeAction(
    key: String, action: @escaping @Sendable () -> Void, protect: (@Sendable () -> Void)? = nil
  ) {
    let protecting = inner.withLock { inner in
      guard case .protect = inner.mode else { return false }
      inner.heldActions[key] = action
      return true
    }
    if !protecting {
      emit(.lifeAction(key: key, outcome: .ran))
      _ = configuration.failpoints.evaluate("life." + key)
      action()
    } else if let protect {
      emit(.lifeAction(key: key, outcome: .protected))
      protect()
    } else {
      emit(.lifeAction(key: key, outcome: .held))
    }
  }

  /// Runs and forgets the action held for `key`; false when none is held.
  @discardableResult
  public func performAction(key: String) -> Bool {
    guard let action = inner.withLock({ $0.heldActions.removeValue(forKey: key) }) else { return false }
    emit(.lifeAction(key: key, outcome: .performed))
    _ = configuration.failpoints.evaluate("life." + key)
    action()
    return true
  }

  /// Records a cause an external crash reporter saw (Objective-C's `handleException:`).
  /// It does not change the count: the sentinel already decides that.
  public func handleException(_ type: String, detail: String? = nil) {
    let afterLaunch = currentMode == .finished
    let cause = CrashCause(
      type: type, detail: detail, pid: getpid(), afterLaunch: afterLaunch, recordDate: Date())
    let clamped = cause.clamped()
    let (_, problems) = stateStore.update { $0.lastCrashCause = clamped }
    inner.withLock { $0.lastCause = clamped.type }
    for problem in problems { emit(.stateProblem(problem)) }
    emit(.exceptionRecorded(cause))
  }
}
