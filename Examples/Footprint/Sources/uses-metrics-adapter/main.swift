// The swift-metrics adapter: its metrics, on the default (no-op) factory.
import LaunchProtection
import LaunchProtectionMetrics

let metrics = LaunchMetrics()
print(type(of: metrics))
