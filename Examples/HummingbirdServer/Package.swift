// swift-tools-version: 6.1
import PackageDescription

// A Hummingbird 2 key-value server protected by LaunchProtection through LaunchProtectionServer
// (`ServerLaunch`: the organizer, crash capture, the chaos probe and swift-log events in one
// ServiceLifecycle service) plus Prometheus metrics; its own scenarios run from its own tests
// through ChaosKit.
let package = Package(
  name: "HummingbirdServer",
  platforms: [.macOS(.v15)],
  dependencies: [
    // In your project: .package(url: "<LaunchChaos repository>", from: "…", traits: ["Harness"]);
    // the trait Harness brings ChaosKit for the tests and turns the probe on (see Package.swift)
    .package(name: "LaunchChaos", path: "../..", traits: ["Harness"]),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
  ],
  targets: [
    .executableTarget(
      name: "hbkv",
      dependencies: [
        .product(name: "LaunchProtectionServer", package: "LaunchChaos"),
        .product(name: "LaunchProtectionMetrics", package: "LaunchChaos"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ]
    ),
    .testTarget(
      name: "HummingbirdServerTests",
      // hbkv is a dependency so that `swift test` builds the server the scenarios launch, and
      // AppTests imports it (@testable) to build the application in parallel tests.
      dependencies: [
        "hbkv", .product(name: "ChaosKit", package: "LaunchChaos"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
