import Foundation
import Hummingbird
import LaunchProtectionServer
import Logging
import Prometheus

@testable import hbkv

/// hbkv as main.swift builds it with its defaults (the launch before the group), on a directory
/// of the test's own instead of /var/lib/hbkv: the launch begun, the data loaded, the launch
/// added as a service. Crash capture stays on, as in production (LaunchProtectionServer's
/// article "Testing a server" says why).
struct TestServer {
  /// The launch, for the tests' checks and for `markLaunchingFinished()` under `.router`.
  let launch: ServerLaunch
  /// The application, for `app.test(.router)` or `.live`.
  let app: Application<RouterResponder<BasicRequestContext>>

  /// Builds it with its data and state in `directory`. No launch deadline: under `.router`
  /// nothing calls `onServerRunning`, and a deadline would end a slow test's whole process.
  init(in directory: String) async throws {
    let store = KeyValueStore(dataDirectory: directory + "/data")
    var logger = Logger(label: "hbkv-test")
    logger.logLevel = .notice
    let launch = ServerLaunch(
      stateDirectory: directory + "/data/launch", policy: .threshold(2).whenExhausted(.exit(status: 75)),
      logger: logger)
    try await launch.launch { _ in try store.quarantineDataFile() }
    try store.load()
    var app = Server.application(
      store: store, port: 0, logger: logger, organizer: launch.organizer, metrics: PrometheusCollectorRegistry(),
      beforeServerStarts: [], onServerRunning: { await launch.markLaunchingFinished() })
    app.addServices(launch)
    self.launch = launch
    self.app = app
  }
}

/// Runs `body` with a new directory of this test's own under the system's temporary directory
/// (`mkdtemp`), removed with everything in it once `body` returns or throws.
func withTestDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
  var template = Array((NSTemporaryDirectory() + "/hbkv-test-XXXXXX").utf8CString)
  guard let made = mkdtemp(&template) else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
  let directory = String(cString: made)
  defer { try? FileManager.default.removeItem(atPath: directory) }
  return try await body(directory)
}
