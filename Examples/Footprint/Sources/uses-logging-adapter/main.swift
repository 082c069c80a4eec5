// The swift-log adapter: an event's level and name.
import LaunchProtection
import LaunchProtectionLogging

print(LaunchEventLogger.name(of: .launchingFinished), LaunchEventLogger.level(of: .launchingFinished))
