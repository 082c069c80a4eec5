import Foundation
import Hummingbird
import LaunchProtectionServer

@testable import quickstart

/// What main.swift's snippet builds, with the paths a test gives instead of /var/lib/todos and
/// /var/cache/todos: the launch begun on `directory/launch`, the router built from
/// `directory/todos.cache`, the launch added as a service. Crash capture stays on, as in
/// production (the article "Testing a server" says why).
struct TestApplication {
  /// The launch, for the tests' checks of its status.
  let protection: ServerLaunch
  /// The application, for `app.test(.router)`.
  let app: Application<RouterResponder<BasicRequestContext>>

  /// Builds it in `directory`, a directory of the test's own. The snippet's 30 s deadline is
  /// kept: far longer than a test, which under `.router` never finishes its launch itself.
  init(in directory: String) async throws {
    let cache = directory + "/todos.cache"
    let protection = ServerLaunch(stateDirectory: directory + "/launch", launchDeadline: .seconds(30))
    try await protection.launch { _ in try clearCaches(cacheFile: cache) }
    let router = try await buildRouter(cacheFile: cache, protection: protection)
    var app = Application(router: router, onServerRunning: { _ in await protection.markLaunchingFinished() })
    app.addServices(protection)
    self.protection = protection
    self.app = app
  }
}

/// Runs `body` with a new directory of this test's own under the system's temporary directory
/// (`mkdtemp`: private, a unique name), removed with everything in it once `body` returns or
/// throws; so parallel tests never share a launch's count, and nothing is left behind.
func withTestDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
  var template = Array((NSTemporaryDirectory() + "/quickstart-test-XXXXXX").utf8CString)
  guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  let directory = String(cString: made)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  return try await body(directory)
}
