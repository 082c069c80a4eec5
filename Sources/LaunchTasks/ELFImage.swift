#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A file mapped into this process, with the bias between its ELF addresses and memory.
struct LoadedImage {
  var path: String
  var loadBias: UInt
}

enum LoadedImages {
  /// Images from `/proc/self/maps`: for each file, its mapping at file offset 0 gives the
  /// load bias (mapping start minus the first PT_LOAD's page-aligned virtual address).
  static func current() -> [LoadedImage] {
    guard let bytes = ELFImage.contents("/proc/self/maps") else { return [] }
    let maps = String(decoding: bytes, as: UTF8.self)
    var seen = Set<String>()
    var images: [LoadedImage] = []
    for line in maps.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count == 6, fields[2] == "00000000" || UInt64(fields[2], radix: 16) == 0 else { continue }
      // The path column is padded with spaces (trimmed at both ends, as before).
      let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
      let path = String(fields[5].drop(while: isBlank).reversed().drop(while: isBlank).reversed())
      guard path.hasPrefix("/"), !seen.contains(path),
        let start = UInt(fields[0].split(separator: "-")[0], radix: 16),
        let firstLoad = ELFImage.firstLoadAddress(path)
      else { continue }
      seen.insert(path)
      images.append(LoadedImage(path: path, loadBias: start &- UInt(firstLoad & ~0xfff)))
    }
    return images
  }
}

/// Reads just enough of an ELF64 file: program headers and named section headers.
enum ELFImage {
  struct Section {
    var address: UInt64
    var size: UInt64
  }

  /// `count` bytes at `offset` of the open file `fd`; nil when fewer are there.
  private static func read(_ fd: Int32, at offset: UInt64, count: Int) -> [UInt8]? {
    guard offset <= UInt64(Int64.max) else { return nil }
    var failed = false
    let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, filled in
      filled = 0
      while filled < count {
        let got = pread(fd, buffer.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled))
        if got < 0, errno == EINTR { continue }
        if got <= 0 {
          failed = true
          return
        }
        filled += got
      }
    }
    return failed ? nil : bytes
  }

  /// A whole file read to its end (`/proc/self/maps`, whose size `stat` does not give).
  static func contents(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 << 10)
    while true {
      let got = chunk.withUnsafeMutableBytes { readDescriptor(fd, $0.baseAddress!, $0.count) }
      if got < 0, errno == EINTR { continue }
      if got < 0 { return nil }
      if got == 0 { return bytes }
      bytes += chunk[..<got]
    }
  }

  private static func integer<T: FixedWidthInteger>(_ data: [UInt8], _ offset: Int, as: T.Type) -> T {
    data.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
  }

  /// The ELF64 little-endian header, or nil for anything else.
  private static func header(_ fd: Int32) -> [UInt8]? {
    guard let header = read(fd, at: 0, count: 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46]),
      header[4] == 2, header[5] == 1
    else { return nil }
    return header
  }

  static func firstLoadAddress(_ path: String) -> UInt? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard let header = header(fd) else { return nil }
    let programOffset = integer(header, 32, as: UInt64.self)
    let entrySize = Int(integer(header, 54, as: UInt16.self))
    let count = Int(integer(header, 56, as: UInt16.self))
    guard entrySize >= 56, let table = read(fd, at: programOffset, count: entrySize * count) else { return nil }
    for index in 0..<count where integer(table, index * entrySize, as: UInt32.self) == 1 {  // PT_LOAD
      return UInt(integer(table, index * entrySize + 16, as: UInt64.self))  // p_vaddr
    }
    return nil
  }

  static func section(named name: String, in path: String) -> Section? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    guard let header = header(fd) else { return nil }
    let sectionOffset = integer(header, 40, as: UInt64.self)
    let entrySize = Int(integer(header, 58, as: UInt16.self))
    let count = Int(integer(header, 60, as: UInt16.self))
    let namesIndex = Int(integer(header, 62, as: UInt16.self))
    guard entrySize >= 64, count > 0, namesIndex < count,
      let table = read(fd, at: sectionOffset, count: entrySize * count)
    else { return nil }
    let namesOffset = integer(table, namesIndex * entrySize + 24, as: UInt64.self)
    let namesSize = Int(integer(table, namesIndex * entrySize + 32, as: UInt64.self))
    guard namesSize < 16 << 20, let names = read(fd, at: namesOffset, count: namesSize) else { return nil }
    let wanted = Array(name.utf8) + [0]
    for index in 0..<count {
      let base = index * entrySize
      let nameOffset = Int(integer(table, base, as: UInt32.self))
      guard nameOffset + wanted.count <= names.count,
        names[names.startIndex + nameOffset..<names.startIndex + nameOffset + wanted.count].elementsEqual(wanted)
      else { continue }
      return Section(
        address: integer(table, base + 16, as: UInt64.self), size: integer(table, base + 32, as: UInt64.self))
    }
    return nil
  }
}

// The C library's `read` by a name of its own: inside `ELFImage` its `read(_:at:count:)` hides it.
private func readDescriptor(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
  read(fd, buffer, count)
}
