import Foundation
import Hummingbird
import LaunchProtectionServer
import Logging
import Prometheus

/// The HTTP side: GET /kv/:key, PUT /kv/:key and the probes' routes (GET /health, /ready,
/// /metrics: `ProbeRoutes`), on 127.0.0.1.
enum Server {
  static func application(
    store: KeyValueStore, port: Int, logger: Logger, organizer: LaunchOrganizer, metrics: PrometheusCollectorRegistry,
    beforeServerStarts: [@Sendable () async throws -> Void],
    onServerRunning: @escaping @Sendable () async -> Void
  ) -> Application<RouterResponder<BasicRequestContext>> {
    let router = Router()
    ProbeRoutes.add(to: router, organizer: organizer, registry: metrics)
    router.get("/kv/:key") { _, context -> String in
      try requireLaunched(organizer)
      let key = try context.parameters.require("key")
      guard let value = store.get(key) else { throw HTTPError(.notFound) }
      return value + "\n"
    }
    router.put("/kv/:key") { request, context -> HTTPResponse.Status in
      try requireLaunched(organizer)
      let key = try context.parameters.require("key")
      let body = try await request.body.collect(upTo: 64 * 1024)
      do {
        try store.put(key, String(buffer: body))
      } catch let error as KeyValueStore.StoreError {
        throw HTTPError(.badRequest, message: error.description)
      }
      return .noContent
    }
    var app = Application(
      router: router,
      configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "hbkv"),
      onServerRunning: { _ in await onServerRunning() },
      logger: logger)
    for process in beforeServerStarts { app.beforeServerStarts(perform: process) }
    return app
  }

  /// The data is served once the launch finished (HBKV_LAUNCH=while-serving listens before).
  private static func requireLaunched(_ organizer: LaunchOrganizer) throws {
    let status = organizer.status
    guard status.launchFinished else {
      throw HTTPError(.serviceUnavailable, message: "launching: \(status)")
    }
  }
}
