import Foundation

/// One frame of a symbolized backtrace.
public struct SymbolizedFrame: Codable, Sendable, Equatable {
  /// Position in the record's frames.
  public var index: Int
  /// The raw PC, hex.
  public var address: String
  /// The module that contains it.
  public var module: String?
  /// The address relative to the module's load bias, hex.
  public var offset: String?
  /// Demangled function names, innermost inlined frame first; empty when unknown.
  public var functions: [String]
  /// Source file of the innermost function.
  public var file: String?
  /// Source line.
  public var line: Int?

  /// `#3 Module.function(_:) (File.swift:42) in chaos-target+0x1234`.
  public var description: String {
    let name = functions.isEmpty ? "???" : functions.joined(separator: " ← inlined in ")
    let location = file.map { " (\(URL(fileURLWithPath: $0).lastPathComponent):\(line ?? 0))" } ?? ""
    let place = module.map { " in \(URL(fileURLWithPath: $0).lastPathComponent)+\(offset ?? "?")" } ?? ""
    return "#\(index) \(name)\(location)\(place)"
  }

  /// Text that `backtrace_contains` matches: function names and the file name.
  public var searchableText: String {
    (functions + [file.map { URL(fileURLWithPath: $0).lastPathComponent } ?? ""]).joined(separator: " ")
  }
}

/// A symbolized crash record.
public struct Backtrace: Codable, Sendable {
  /// The frames, in record order.
  public var frames: [SymbolizedFrame]
  /// What went less well (a missing tool, frames omitted at the cap).
  public var notes: [String]

  /// Whether any frame's function or file contains `text`, case-insensitively.
  public func contains(_ text: String) -> Bool {
    frames.contains { $0.searchableText.range(of: text, options: .caseInsensitive) != nil }
  }

  /// One frame a line.
  public var description: String { (frames.map(\.description) + notes.map { "note: \($0)" }).joined(separator: "\n") }
}

/// Turns raw frames plus the module map into `function (file:line)`, out of process, with the
/// toolchain's `llvm-symbolizer` (batched per module) and `swift-demangle`; falls back to
/// `addr2line`, then to raw module offsets, saying so in the notes.
public struct Symbolizer: Sendable {
  /// Path of llvm-symbolizer, if found.
  public var llvmSymbolizer: String?
  /// Path of swift-demangle, if found.
  public var demangler: String?
  /// Path of addr2line, if found.
  public var addr2line: String?

  /// Locates the tools (see `ToolLocator`).
  public init() {
    llvmSymbolizer = ToolLocator.find("llvm-symbolizer")
    demangler = ToolLocator.find("swift-demangle")
    addr2line = ToolLocator.find("addr2line")
  }

  /// Uses exactly these tools (nil: not available).
  public init(llvmSymbolizer: String?, demangler: String?, addr2line: String?) {
    self.llvmSymbolizer = llvmSymbolizer
    self.demangler = demangler
    self.addr2line = addr2line
  }

  /// Symbolizes every frame of the record.
  public func symbolize(_ record: CrashRecord) -> Backtrace {
    var notes: [String] = []
    let modules = record.modules.compactMap { module -> (CrashRecord.Module, UInt64, UInt64, UInt64)? in
      guard let base = hex(module.base), let start = hex(module.start), let end = hex(module.end) else { return nil }
      return (module, base, start, end)
    }
    var frames: [SymbolizedFrame] = []
    // Module path → [(frame index, offset to look up)]
    var lookups: [String: [(Int, UInt64)]] = [:]
    for (index, address) in record.frames.enumerated() {
      var frame = SymbolizedFrame(index: index, address: address, functions: [])
      // A module whose base lies above the address is a bad map (a damaged record): no offset.
      if let pc = hex(address),
        let (module, base, _, _) = modules.first(where: { pc >= $0.2 && pc < $0.3 && pc >= $0.1 })
      {
        // Return addresses point after the call; look up the call itself.
        let offset = pc - base
        let lookup = index == 0 || offset == 0 ? offset : offset - 1
        frame.module = module.path
        frame.offset = "0x" + String(offset, radix: 16)
        lookups[module.path, default: []].append((index, lookup))
      }
      frames.append(frame)
    }
    if record.framesOmitted > 0 {
      notes.append(
        "\(record.framesOmitted) frames omitted after frame \(record.framesOmittedAt) (of \(record.framesTotal))")
    }
    if record.walkStopped {
      notes.append(
        "the walk stopped after \(record.framesTotal) frames with the stack going deeper: "
          + "the last frames are not the thread's bottom")
    } else if record.framesByFramePointers > 0 {
      notes.append(
        "\(record.framesByFramePointers) frames past the walk's cap were found through frame pointers "
          + "(functions without one are not listed)")
    }
    if let llvmSymbolizer {
      for (path, entries) in lookups.sorted(by: { $0.key < $1.key }) {
        let results = runLLVMSymbolizer(llvmSymbolizer, path: path, offsets: entries.map(\.1))
        if results == nil { notes.append("llvm-symbolizer failed on \(path)") }
        for (position, entry) in entries.enumerated() {
          guard let result = results?[safe: position] else { continue }
          frames[entry.0].functions = result.functions
          frames[entry.0].file = result.file
          frames[entry.0].line = result.line
        }
      }
    } else if let addr2line {
      notes.append("llvm-symbolizer not found; used addr2line (no inlined frames)")
      for (path, entries) in lookups {
        let arguments = ["-f", "-e", path] + entries.map { "0x" + String($0.1, radix: 16) }
        let lines = ToolLocator.run(addr2line, arguments)?.split(separator: "\n").map(String.init) ?? []
        for (position, entry) in entries.enumerated() where position * 2 + 1 < lines.count {
          let function = lines[position * 2]
          if function != "??" { frames[entry.0].functions = [function] }
          let location = lines[position * 2 + 1].split(separator: ":")
          if let file = location.first, file != "??" { frames[entry.0].file = String(file) }
          if let line = location.last.flatMap({ Int($0.prefix { $0.isNumber }) }) { frames[entry.0].line = line }
        }
      }
    } else {
      notes.append("no llvm-symbolizer or addr2line found; frames are raw module offsets")
    }
    demangle(&frames, notes: &notes)
    return Backtrace(frames: frames, notes: notes)
  }

  private struct LookupResult {
    var functions: [String]
    var file: String?
    var line: Int?
  }

  private func runLLVMSymbolizer(_ tool: String, path: String, offsets: [UInt64]) -> [LookupResult]? {
    let arguments =
      ["--obj=\(path)", "--output-style=JSON", "--functions=linkage", "--no-demangle", "--inlines"]
      + offsets.map { "0x" + String($0, radix: 16) }
    guard let output = ToolLocator.run(tool, arguments),
      let array = (try? JSONSerialization.jsonObject(with: Data(output.utf8))) as? [[String: Any]]
    else { return nil }
    return array.map { entry in
      let symbols = (entry["Symbol"] as? [[String: Any]]) ?? []
      let functions = symbols.compactMap { $0["FunctionName"] as? String }.filter { !$0.isEmpty && $0 != "??" }
      let file = (symbols.first?["FileName"] as? String).flatMap { $0.isEmpty ? nil : $0 }
      return LookupResult(functions: functions, file: file, line: symbols.first?["Line"] as? Int)
    }
  }

  private func demangle(_ frames: inout [SymbolizedFrame], notes: inout [String]) {
    let names = frames.flatMap(\.functions)
    guard !names.isEmpty else { return }
    guard let demangler else {
      notes.append("swift-demangle not found; Swift names are mangled")
      return
    }
    guard let output = ToolLocator.run(demangler, ["--simplified"], input: names.joined(separator: "\n") + "\n") else {
      notes.append("swift-demangle failed; Swift names are mangled")
      return
    }
    var demangled = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).makeIterator()
    for index in frames.indices {
      frames[index].functions = frames[index].functions.map { demangled.next() ?? $0 }
    }
  }

  private func hex(_ text: String) -> UInt64? {
    UInt64(text.hasPrefix("0x") ? String(text.dropFirst(2)) : text, radix: 16)
  }
}

extension Array {
  subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
