import Foundation
import LaunchProtection
import LaunchTasks
import Logging

// What the documented snippets leave to the app: each is a stand-in, so that the calls around
// it compile exactly as the documentation writes them.

let log = Logger(label: "mydaemon")
let logger = log
let logFD: Int32 = 2
let running = false
let workflow = Workflow()

func openDatabase() {}
func connectToDatabase() throws -> DatabaseClient { DatabaseClient() }
func startServer() {}
func startServer() async throws {}
func clearCaches() {}
func resetConfiguration() {}
func wipeData() {}
func registerWithLoadBalancer() {}
func startEverything() {}
func repair() {}
func serve(for duration: Duration) {}
func loadDataFile() async throws {}
func loadDataFile(_ database: DatabaseClient) async throws {}
/// A database connection, as the dependency-outage snippets have one.
public struct DatabaseClient: Sendable {}
func connectWithRetries() async throws -> DatabaseClient { DatabaseClient() }
func connectWithRetries(to url: String, giveUpAfter: Duration) async throws -> DatabaseClient { DatabaseClient() }
let databaseURL = "postgres://localhost/kv"
func migrate(_ client: DatabaseClient) async throws {}
func repair(_ context: ProtectContext) async throws {}
func quarantineDataFile(level: ProtectLevel) async throws {}

/// hbkv's data store, as far as the ServiceGroup snippet uses it.
struct Store: Sendable {
  func quarantineDataFile() throws {}
  func load() throws {}
}
let store = Store()
