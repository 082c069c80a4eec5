// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "LaunchChaos",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "LaunchProtection", targets: ["LaunchProtection"]),
    .library(name: "LaunchTasks", targets: ["LaunchTasks"]),
    .library(name: "Failpoints", targets: ["Failpoints"]),
    .executable(name: "chaos-target", targets: ["chaos-target"]),
  ],
  dependencies: [],
  targets: [
    .systemLibrary(
      name: "CLibunwind",
      pkgConfig: "libunwind",
      providers: [.apt(["libunwind-dev"])]
    ),
    .target(
      name: "CCrashCapture",
      dependencies: ["CLibunwind"],
      linkerSettings: [.linkedLibrary("dl")]
    ),
    .target(name: "CFailpointFaults"),
    .target(name: "Failpoints", dependencies: ["CFailpointFaults"]),
    .target(name: "LaunchProtection", dependencies: ["CCrashCapture", "Failpoints"]),
    .target(name: "LaunchTasks", dependencies: ["Failpoints"]),
    .executableTarget(
      name: "chaos-target",
      dependencies: ["LaunchProtection", "LaunchTasks", "Failpoints"]
    ),
    .testTarget(name: "FailpointsTests", dependencies: ["Failpoints"]),
    .testTarget(
      name: "LaunchProtectionTests",
      dependencies: ["LaunchProtection", "Failpoints"]
    ),
  ],
  swiftLanguageModes: [.v6]
)
