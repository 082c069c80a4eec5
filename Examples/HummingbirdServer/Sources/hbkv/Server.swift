import Foundation
import Hummingbird
import Logging

/// The HTTP side: GET /health, GET /kv/:key, PUT /kv/:key, on 127.0.0.1.
enum Server {
  static func application(
    store: KeyValueStore, port: Int, logger: Logger,
    beforeServerStarts: [@Sendable () async throws -> Void],
    onServerRunning: @escaping @Sendable () async -> Void
  ) -> some ApplicationProtocol {
    let router = Router()
    router.get("/health") { _, _ in "ok\n" }
    router.get("/kv/:key") { _, context -> String in
      let key = try context.parameters.require("key")
      guard let value = store.get(key) else { throw HTTPError(.notFound) }
      return value + "\n"
    }
    router.put("/kv/:key") { request, context -> HTTPResponse.Status in
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
}
