import Foundation

/// Finds the toolchain's programs: first next to the `swift` driver (the toolchain's own
/// llvm-symbolizer understands Swift's DWARF best), then on `PATH`.
package enum ToolLocator {
  /// The absolute path of `name`, or nil.
  package static func find(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    var directories = path.split(separator: ":").map(String.init)
    if let swift = directories.lazy.map({ $0 + "/swift" }).first(where: FileManager.default.isExecutableFile),
      let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: swift)
    {
      let toolchain = URL(
        fileURLWithPath: resolved, relativeTo: URL(fileURLWithPath: swift).deletingLastPathComponent()
      )
      .deletingLastPathComponent().path
      directories.insert(toolchain, at: 0)
    }
    for directory in directories {
      let candidate = directory + "/" + name
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Runs a tool with arguments and standard input; returns standard output, or nil if it failed.
  package static func run(_ executable: String, _ arguments: [String], input: String? = nil) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    let inputPipe = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : inputPipe
    do { try process.run() } catch { return nil }
    if let input {
      // Written from another thread so a large output cannot deadlock against our read.
      let handle = inputPipe.fileHandleForWriting
      let bytes = Data(input.utf8)
      Thread.detachNewThread {
        handle.write(bytes)
        try? handle.close()
      }
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { return nil }
    return String(decoding: data, as: UTF8.self)
  }
}
