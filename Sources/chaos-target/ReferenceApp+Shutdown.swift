import ChaosProbe
import Dispatch
import LaunchProtection
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How the reference app receives its end: a Dispatch signal source for SIGTERM (a graceful
/// shutdown), or a wait for SIGTERM/SIGINT with systemd watchdog keep-alives.
extension ReferenceApp {
  /// SIGTERM through a Dispatch signal source, as swift-service-lifecycle receives it: a
  /// graceful shutdown that records a stop during the launch and exits 0 once launched.
  func startGracefulShutdownSource() {
    let source = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue(label: "sigterm"))
    let wired = configuration.sigtermWired ?? true
    // Its handler is the app's shutdown path, and it calls stopRequested() (ServerLaunch's way).
    if wired { organizer.declareShutdownPath() }
    source.setEventHandler {
      ChaosProbe.emit("graceful_shutdown", ["launch_finished": self.organizer.currentMode == .finished])
      if wired { self.organizer.stopRequested() }
      if self.organizer.currentMode == .finished { exit(0) }
    }
    // Registration is asynchronous; wait for it, as swift-service-lifecycle does.
    let registered = DispatchSemaphore(value: 0)
    source.setRegistrationHandler { registered.signal() }
    source.resume()
    registered.wait()
    let box = SignalSourceBox(source: source)
    signalSources.withLock { $0.append(box) }
    ChaosProbe.emit("sigterm_source_ready")
  }

  /// Up until SIGTERM/SIGINT, sending systemd watchdog keep-alives at half its interval.
  func waitForTermination() {
    let interval = (configuration.keepAlive ?? true) ? SystemdNotify.watchdogInterval : nil
    let timeout = interval.map { Int32($0.wholeMicroseconds / 2000) } ?? -1
    var descriptor = pollfd(fd: TerminationPipe.readEnd, events: Int16(POLLIN), revents: 0)
    while true {
      if interval != nil { SystemdNotify.keepAlive() }
      if poll(&descriptor, 1, timeout) > 0 { return }
    }
  }
}
