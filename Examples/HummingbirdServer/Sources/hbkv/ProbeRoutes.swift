import Hummingbird
import LaunchProtectionServer
import Prometheus

/// What a Kubernetes pod's probes and a Prometheus scrape read: GET /health (liveness: the
/// process answers), GET /ready (readiness: `organizer.status`), GET /metrics (the registry in
/// Prometheus' text format, LaunchProtectionMetrics' series among them).
///
/// With HBKV_LAUNCH=before-group or before-server-starts hbkv handles requests only once its
/// launch (and any repair and relaunch) finished, so /ready is always 200 there; with
/// HBKV_LAUNCH=while-serving it answers during the launch, and /ready is 503 until it finished.
enum ProbeRoutes {
  static func add(
    to router: Router<BasicRequestContext>, organizer: LaunchOrganizer, registry: PrometheusCollectorRegistry
  ) {
    router.get("/health") { _, _ in "ok\n" }
    router.get("/ready") { _, _ in
      let status = organizer.status
      return text("\(status.readiness): \(status)\n", status: status.isReady ? .ok : .serviceUnavailable)
    }
    router.get("/metrics") { _, _ in
      text(registry.emitToString(), contentType: "text/plain; version=0.0.4; charset=utf-8")
    }
  }

  private static func text(
    _ body: String, status: HTTPResponse.Status = .ok, contentType: String = "text/plain; charset=utf-8"
  ) -> Response {
    Response(
      status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
  }
}
