/// `kubernetes:`: the harness plays the kubelet for a scenario's launches, which are the
/// successive starts of one container: the restart policy and CrashLoopBackOff between them,
/// the startup, liveness and readiness probes during each, the termination grace period when
/// a probe kills one. Durations are the pod spec's own; `timeScale` multiplies every one of
/// them, so a test runs Kubernetes' defaults in a fraction of the time.
package struct KubeletSpec: Sendable, Equatable {
  /// `restartPolicy`.
  package enum RestartPolicy: String, Sendable, Equatable, CaseIterable {
    /// Every exit is restarted, exit 0 included.
    case always = "Always"
    /// Only a failure (a non-zero exit, a death by a signal) is restarted.
    case onFailure = "OnFailure"
    /// Nothing is restarted.
    case never = "Never"
  }

  /// `restartPolicy` (default `Always`).
  package var restartPolicy: RestartPolicy = .always
  /// CrashLoopBackOff's first delay (Kubernetes: 10 s), doubled at each restart.
  package var backoffInitial: Double = 10
  /// CrashLoopBackOff's cap (Kubernetes: 300 s).
  package var backoffCap: Double = 300
  /// A container that ran this long resets the back-off (Kubernetes: 10 minutes).
  package var backoffReset: Double = 600
  /// Multiplies every duration above and below (default 1: real time).
  package var timeScale: Double = 1
  /// `terminationGracePeriodSeconds` (default 30): SIGTERM, then SIGKILL this long after.
  package var terminationGracePeriod: Double = 30
  /// `startupProbe`: the other probes wait for it; failing it kills the container.
  package var startupProbe: ProbeSpec?
  /// `livenessProbe`: failing it kills the container.
  package var livenessProbe: ProbeSpec?
  /// `readinessProbe`: takes the container in and out of service (recorded, never kills).
  package var readinessProbe: ProbeSpec?

  /// Kubernetes' defaults, no probes.
  package init() {}

  /// The back-off before restart number `restart` (1-based, counted since the last reset), in
  /// real seconds: `backoffInitial` × 2^(restart-1), capped, scaled.
  package func backoff(beforeRestart restart: Int) -> Double {
    let doublings = min(max(restart - 1, 0), 30)
    return min(backoffInitial * Double(1 << doublings), backoffCap) * timeScale
  }
}

/// A kubelet probe.
package struct ProbeSpec: Sendable, Equatable {
  /// What the probe does.
  package enum Action: Sendable, Equatable {
    /// `httpGet`: success is a status from 200 to 399. `port` nil: the launch's `CHAOS_PORT`.
    case http(path: String, port: Int?)
    /// `exec`: success is exit status 0.
    case command([String])
  }

  /// What the probe does.
  package var action: Action
  /// `periodSeconds` (default 10).
  package var period: Double = 10
  /// `timeoutSeconds` (default 1).
  package var timeout: Double = 1
  /// `failureThreshold` (default 3): consecutive failures that fail the probe.
  package var failureThreshold = 3
  /// `successThreshold` (default 1): consecutive successes that pass it.
  package var successThreshold = 1
  /// `initialDelaySeconds` (default 0), from the container's start.
  package var initialDelay: Double = 0

  /// A probe with Kubernetes' defaults.
  package init(action: Action) { self.action = action }

  /// How long after the container's start the probe's last allowed failure comes, unscaled:
  /// attempts run at `initialDelay`, then every `period`, so the failure that kills is the
  /// `failureThreshold`-th, at initialDelay + (failureThreshold − 1) × period (Kubernetes'
  /// documentation rounds this to failureThreshold × periodSeconds).
  package var budget: Double { initialDelay + Double(failureThreshold - 1) * period }
}

/// `probes:` of an expectation: what each probe concluded in the launch.
package struct ProbeExpectation: Sendable, Equatable {
  /// `startup`: `passed` (it succeeded) or `failed` (it killed the container).
  package var startup: Bool?
  /// `liveness`: `passed` (it never failed the container) or `failed` (it killed it).
  package var liveness: Bool?
  /// `readiness`: `ready` (the container was ready at some point) or `not_ready` (never).
  package var readiness: Bool?
}
