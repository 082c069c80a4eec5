import Synchronization

/// `report_launch_release`: whether the organizer let the launch closure go once it ran. A
/// server's launch closure captures its listeners and buffers; protect mode holds it until
/// `protectFinished()` runs it, and nothing should keep it after. The closure captures a token
/// this watch references weakly.
final class HeldLaunchWatch: Sendable {
  private final class Token: Sendable {}

  private struct Reference {
    weak var token: Token?
  }

  private let reference = Mutex(Reference())

  /// `body`, capturing a fresh token.
  func wrap(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
    let token = Token()
    reference.withLock { $0.token = token }
    return { withExtendedLifetime(token) { body() } }
  }

  /// Whether the token, so the closure, is gone.
  var isReleased: Bool { reference.withLock { $0.token == nil } }
}
