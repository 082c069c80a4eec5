// The server product: a ServerLaunch (organizer, probe, swift-log events, crash capture).
import LaunchProtectionServer

let launch = ServerLaunch(stateDirectory: "/tmp/footprint-server-launch", crashCapture: false)
print(launch, launch.status)
