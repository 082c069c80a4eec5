import Foundation
import Hummingbird
import LaunchProtectionServer

// The app the README's snippet protects: a todos list whose routes are built from a cache file. A
// corrupt cache traps while the router is built, on every start, until the repair clears it.
// Each function the snippet calls has a form with parameters, which the tests call with a state
// directory and a cache of their own (Tests/QuickStartTests); main.swift's globals stay main's.

/// The port to listen on (`CHAOS_PORT` under `chaos`).
let port = ProcessInfo.processInfo.environment["CHAOS_PORT"].flatMap(Int.init) ?? 8080

/// Where the cache lives.
let cacheFile = (ProcessInfo.processInfo.environment["QUICKSTART_CACHE_DIR"] ?? "/var/cache/todos") + "/todos.cache"

/// The snippet's start-up: `buildRouter(cacheFile:protection:)` on this process's cache and launch.
func buildRouter() async throws -> Router<BasicRequestContext> {
  try await buildRouter(cacheFile: cacheFile, protection: protection)
}

/// The start-up: reads the cache (one todo a line; a line `corrupt` traps, as a bad cache format
/// would) and, with `QUICKSTART_WARMUP_MS`, warms up that long (a start-up a SIGTERM can interrupt).
/// `/ready` answers with `protection`'s status.
func buildRouter(cacheFile: String, protection: ServerLaunch) async throws -> Router<BasicRequestContext> {
  let cached = (try? String(contentsOfFile: cacheFile, encoding: .utf8)) ?? ""
  let todos = cached.split(separator: "\n").map { line in
    guard line != "corrupt" else { fatalError("corrupt cache line in \(cacheFile)") }
    return String(line)
  }
  if let warmUp = ProcessInfo.processInfo.environment["QUICKSTART_WARMUP_MS"].flatMap(Int.init) {
    try await Task.sleep(for: .milliseconds(warmUp))
  }
  let router = Router()
  router.get("/health") { _, _ in "ok\n" }
  router.get("/todos") { _, _ in todos.map { $0 + "\n" }.joined() }
  router.get("/ready") { _, _ in "\(protection.status)\n" }
  return router
}

/// The snippet's repair: `clearCaches(cacheFile:)` on this process's cache.
func clearCaches() throws {
  try clearCaches(cacheFile: cacheFile)
}

/// The repair: the cache is rebuilt on demand, so removing it loses nothing.
func clearCaches(cacheFile: String) throws {
  guard FileManager.default.fileExists(atPath: cacheFile) else { return }
  try FileManager.default.removeItem(atPath: cacheFile)
}
