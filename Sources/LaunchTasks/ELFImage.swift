import Foundation

/// A file mapped into this process, with the bias between its ELF addresses and memory.
struct LoadedImage {
  var path: String
  var loadBias: UInt
}

enum LoadedImages {
  /// Images from `/proc/self/maps`: for each file, its mapping at file offset 0 gives the
  /// load bias (mapping start minus the first PT_LOAD's page-aligned virtual address).
  static func current() -> [LoadedImage] {
    guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return [] }
    var seen = Set<String>()
    var images: [LoadedImage] = []
    for line in maps.split(separator: "\n") {
      let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
      guard fields.count == 6, fields[2] == "00000000" || UInt64(fields[2], radix: 16) == 0 else { continue }
      let path = fields[5].trimmingCharacters(in: .whitespaces)
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

  private static func read(_ handle: FileHandle, at offset: UInt64, count: Int) -> Data? {
    guard (try? handle.seek(toOffset: offset)) != nil else { return nil }
    guard let data = try? handle.read(upToCount: count), data.count == count else { return nil }
    return data
  }

  private static func integer<T: FixedWidthInteger>(_ data: Data, _ offset: Int, as: T.Type) -> T {
    data.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
  }

  /// The ELF64 little-endian header, or nil for anything else.
  private static func header(_ handle: FileHandle) -> Data? {
    guard let header = read(handle, at: 0, count: 64), header.starts(with: [0x7F, 0x45, 0x4C, 0x46]),
      header[4] == 2, header[5] == 1
    else { return nil }
    return header
  }

  static func firstLoadAddress(_ path: String) -> UInt? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let header = header(handle) else { return nil }
    let programOffset = integer(header, 32, as: UInt64.self)
    let entrySize = Int(integer(header, 54, as: UInt16.self))
    let count = Int(integer(header, 56, as: UInt16.self))
    guard entrySize >= 56, let table = read(handle, at: programOffset, count: entrySize * count) else { return nil }
    for index in 0..<count where integer(table, index * entrySize, as: UInt32.self) == 1 {  // PT_LOAD
      return UInt(integer(table, index * entrySize + 16, as: UInt64.self))  // p_vaddr
    }
    return nil
  }

  static func section(named name: String, in path: String) -> Section? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let header = header(handle) else { return nil }
    let sectionOffset = integer(header, 40, as: UInt64.self)
    let entrySize = Int(integer(header, 58, as: UInt16.self))
    let count = Int(integer(header, 60, as: UInt16.self))
    let namesIndex = Int(integer(header, 62, as: UInt16.self))
    guard entrySize >= 64, count > 0, namesIndex < count,
      let table = read(handle, at: sectionOffset, count: entrySize * count)
    else { return nil }
    let namesOffset = integer(table, namesIndex * entrySize + 24, as: UInt64.self)
    let namesSize = Int(integer(table, namesIndex * entrySize + 32, as: UInt64.self))
    guard namesSize < 16 << 20, let names = read(handle, at: namesOffset, count: namesSize) else { return nil }
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
