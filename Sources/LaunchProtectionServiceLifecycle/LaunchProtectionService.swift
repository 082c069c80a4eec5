import LaunchProtection
import ServiceLifecycle
import Synchronization

/// A swift-service-lifecycle `Service` that ties a `LaunchOrganizer` to a `ServiceGroup`:
/// graceful shutdown during the launch is recorded as a stop request (that launch is not
/// counted), and the launch is marked finished once the other services are up.
///
/// Put it **last** in the group's services: a `ServiceGroup` shuts its services down in
/// reverse order, so the stop request is recorded as soon as SIGTERM arrives, before the
/// server drains (and before a supervisor's SIGKILL could end a shutdown that hangs).
///
/// ```swift
/// let launch = LaunchProtectionService(organizer: organizer)
/// let app = Application(router: router, onServerRunning: { _ in await launch.markLaunchingFinished() })
/// let group = ServiceGroup(
///   configuration: .init(services: [app, launch], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
/// try await group.run()
/// ```
///
/// The launch itself (`try await organizer.launch(policy:repair:)`) runs either before
/// `group.run()` or inside the group (Hummingbird's `beforeServerStarts`); this service does
/// not start it. Cancellation (a service that threw, a cancellation signal) is not a stop
/// request: a launch that fails that way still counts.
public final class LaunchProtectionService: Service, CustomStringConvertible {
  /// The organizer whose launch this service watches.
  public let organizer: LaunchOrganizer
  private let readiness: (@Sendable () async throws -> Void)?
  private let prepareThreads: Bool
  private let preparedThreads = Atomic<Bool>(false)

  /// A service whose launch is marked finished by the app calling `markLaunchingFinished()`
  /// (e.g. from Hummingbird's `onServerRunning`).
  ///
  /// - Parameters:
  ///   - organizer: the organizer that runs this process's launch.
  ///   - prepareAllThreads: once the launch finished, give every thread of the process an
  ///     alternate signal stack when crash capture is installed (`CrashCapture.prepareAllThreads()`),
  ///     so a stack overflow on a NIO event loop or a pool thread is recorded too.
  public init(organizer: LaunchOrganizer, prepareAllThreads: Bool = true) {
    self.organizer = organizer
    self.readiness = nil
    self.prepareThreads = prepareAllThreads
    // Its `run()` records a graceful shutdown as a stop request.
    organizer.declareShutdownPath()
  }

  /// A service that marks the launch finished itself, once `readiness` returns (e.g. a
  /// closure that awaits the other services' "up" signal). A readiness closure that throws
  /// leaves the launch unfinished.
  ///
  /// - Parameters:
  ///   - organizer: the organizer that runs this process's launch.
  ///   - prepareAllThreads: as in `init(organizer:prepareAllThreads:)`.
  ///   - readiness: returns once the app is up.
  public init(
    organizer: LaunchOrganizer, prepareAllThreads: Bool = true,
    launchFinishedWhen readiness: @escaping @Sendable () async throws -> Void
  ) {
    self.organizer = organizer
    organizer.declareShutdownPath()
    self.readiness = readiness
    self.prepareThreads = prepareAllThreads
  }

  /// The service's name in ServiceGroup logs.
  public var description: String { "LaunchProtectionService" }

  /// The launch succeeded: `await organizer.markLaunchingFinished()` (a no-op when no launch is
  /// under way), then, the first time the launch is found finished, alternate signal stacks
  /// for every thread. Safe to call more than once and from any task.
  public func markLaunchingFinished() async {
    await organizer.markLaunchingFinished()
    guard prepareThreads, organizer.currentMode == .finished, CrashCapture.isInstalled else { return }
    guard !preparedThreads.exchange(true, ordering: .relaxed) else { return }
    CrashCapture.prepareAllThreads()
  }

  /// Runs until graceful shutdown, then records the stop request
  /// (`organizer.stopRequested()` off the cooperative pool, a no-op once the launch
  /// finished) and returns.
  /// Cancelled without a graceful shutdown, it returns without recording anything.
  public func run() async throws {
    // Its group made its signal sources just before running it: adopt SIGTERM's new owner now,
    // not at the watcher's next look, so that a SIGTERM in between is recorded sooner.
    organizer.adoptStopSignalOwner()
    await withTaskGroup(of: Void.self) { group in
      if let readiness {
        group.addTask { [self] in
          do {
            try await readiness()
          } catch {
            return
          }
          guard !Task.isCancelled else { return }
          await markLaunchingFinished()
        }
      }
      do {
        try await gracefulShutdown()
        await organizer.recordStopOffPool()
      } catch {
        // Cancelled: not a stop request.
      }
      group.cancelAll()
    }
  }
}

extension LaunchProtectionService {
  /// The launch succeeded (0.1's name).
  @available(*, deprecated, renamed: "markLaunchingFinished()")
  public func markLaunchFinished() async {
    await markLaunchingFinished()
  }
}
