import Foundation
import Hummingbird

// The app the README's snippet protects: a todos list whose routes are built from a cache file. A
// corrupt cache traps while the router is built, on every start, until the repair clears it.

/// The port to listen on (`CHAOS_PORT` under `chaos`).
let port = ProcessInfo.processInfo.environment["CHAOS_PORT"].flatMap(Int.init) ?? 8080

/// Where the cache lives.
let cacheFile = (ProcessInfo.processInfo.environment["QUICKSTART_CACHE_DIR"] ?? "/var/cache/todos") + "/todos.cache"

/// The start-up: reads the cache (one todo a line; a line `corrupt` traps, as a bad cache format
/// would) and, with `QUICKSTART_WARMUP_MS`, warms up that long (a start-up a SIGTERM can interrupt).
func buildRouter() async throws -> Router<BasicRequestContext> {
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

/// The repair: the cache is rebuilt on demand, so removing it loses nothing.
func clearCaches() throws {
  guard FileManager.default.fileExists(atPath: cacheFile) else { return }
  try FileManager.default.removeItem(atPath: cacheFile)
}
