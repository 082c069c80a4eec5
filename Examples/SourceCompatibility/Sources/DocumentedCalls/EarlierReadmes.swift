import LaunchProtection

// Calls earlier READMEs showed, kept compiling.

/// Before the async API existed, a server called the sync API from its async entry point (a
/// Vapor 4 `configure(_:) async throws`, a Hummingbird `main`). These plain calls must keep
/// compiling in an async function: the async forms have names of their own
/// (`markLaunchingFinished()`, `markStopRequested()`), so the compiler never prefers them here.
public func asyncEntryPointWithTheSyncAPI(organizer: LaunchOrganizer) async throws {
  organizer.finishLaunching(
    shouldProtect: { count in count > 1 },
    launch: {
      openDatabase()
      organizer.launchingFinished()
    },
    protect: {
      clearCaches()
      organizer.protectFinished()
    })
  try await startServer()
  organizer.launchingFinished()
  organizer.stopRequested()
  organizer.handleException("EXC_BAD_ACCESS", detail: "seen by another crash reporter")
  organizer.keepAlive()
}

/// The README between the async API (0.1.0 development) and the names of its own: `await`
/// before the sync names. It compiles; the compiler warns that no async operation occurs
/// within the `await` (the only warnings CI allows in this package).
public func awaitedSyncNames(organizer: LaunchOrganizer) async {
  await organizer.launchingFinished()
  await organizer.stopRequested()
}
