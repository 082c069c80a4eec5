// The ServiceLifecycle adapter: a service around an organizer.
import LaunchProtection
import LaunchProtectionServiceLifecycle

let service = LaunchProtectionService(organizer: LaunchOrganizer(stateDirectory: "/tmp/footprint-service"))
print(service)
