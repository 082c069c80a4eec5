// Vapor 4's API as far as the article's Vapor snippet uses it ("Protecting a Hummingbird or
// Vapor server", LaunchProtectionServer): Vapor is not a dependency here, so these stand-ins
// let the LaunchProtection side of the snippet compile exactly as the article writes it. Their
// shapes follow Vapor 4.100+ (`Application.make`, `startup()`, `running?.onStop`,
// `asyncShutdown()`).

/// Vapor's `Environment`, as `.detect()` makes it.
struct Environment: Sendable {
  static func detect() throws -> Environment { Environment() }
}

/// NIO's `EventLoopFuture`, as far as `onStop` is used.
struct EventLoopFuture<Value: Sendable>: Sendable {
  func whenComplete(_ callback: @escaping @Sendable (Result<Value, any Error>) -> Void) {}
  func get() async throws -> Value? { nil }
}

/// Vapor's `Application`.
final class Application: Sendable {
  /// Set by the serve command once the server listens.
  final class Running: Sendable {
    let onStop = EventLoopFuture<Void>()
  }

  let running: Running? = Running()

  static func make(_ environment: Environment) async throws -> Application { Application() }
  func startup() async throws {}
  func asyncShutdown() async throws {}
}

/// The app's own configuration of routes and migrations.
func configure(_ app: Application) async throws {}
