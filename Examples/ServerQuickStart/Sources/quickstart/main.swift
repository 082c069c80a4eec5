// quickstart: the README's server integration ("Integration in ten lines"), run by
// Examples/ServerQuickStart/Scenarios. What it calls that is not in the snippet (the router, the
// cache, the port) is in App.swift.
//
//   QUICKSTART_CACHE_DIR=/tmp/todos-cache CHAOS_PORT=8080 quickstart   # state in /var/lib/todos/launch

// README: begin
import Hummingbird
import LaunchProtectionServer
let protection = ServerLaunch(stateDirectory: "/var/lib/todos/launch", launchDeadline: .seconds(30))
try await protection.launch { _ in try clearCaches() }  // counts the launch; after 2 crashes in a row, repairs
let router = try await buildRouter()  // your start-up: a crash here is a launch crash
var app = Application(
  router: router, configuration: .init(address: .hostname(port: port)),
  onServerRunning: { _ in await protection.markLaunchingFinished() })  // listening: the launch succeeded
app.addServices(protection)  // a SIGTERM during the launch is a stop, not a crash
try await app.runService()
// README: end
