#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// One compile-time registration: a magic number and a C function that makes the task.
///
/// Declare one anywhere, in any module linked into the program — no central list to edit:
///
/// ```swift
/// @section("launch_tasks") @used
/// let networkTaskRegistration: TaskRegistration = (0x4C61_756E_6368_5453, { registeredTask(NetworkTask()) })
/// ```
///
/// `@section` places the pair in the ELF section `launch_tasks` of the object file; the linker
/// concatenates every module's entries into one section of the final image. At run time
/// `RegisteredTasks.all()` finds that section in every loaded image (the executable and each
/// shared library, through `/proc/self/maps` and the images' section headers), checks the magic
/// and calls each maker once. Limits: ELF only (Linux); the magic must be the literal above;
/// a library loaded later with `dlopen` is found by calling `all()` again.
public typealias TaskRegistration = (UInt64, @convention(c) () -> UnsafeMutableRawPointer)

/// The magic every `TaskRegistration` starts with ("LaunchTS").
public let taskRegistrationMagic: UInt64 = 0x4C61_756E_6368_5453

/// Wraps a task for a `TaskRegistration` maker.
public func registeredTask(_ task: any LaunchTask) -> UnsafeMutableRawPointer {
  Unmanaged.passRetained(task as AnyObject).toOpaque()
}

/// Discovers the tasks registered with `@section("launch_tasks")`.
public enum RegisteredTasks {
  /// The ELF section registrations live in.
  public static let sectionName = "launch_tasks"

  /// Every registered task of every loaded image, each made once per call, in image and
  /// declaration order.
  public static func all() -> [any LaunchTask] {
    var tasks: [any LaunchTask] = []
    for image in LoadedImages.current() {
      guard let section = ELFImage.section(named: sectionName, in: image.path) else { continue }
      let entrySize = MemoryLayout<TaskRegistration>.stride
      guard let start = UnsafeRawPointer(bitPattern: image.loadBias &+ UInt(section.address)) else { continue }
      for offset in stride(from: 0, to: Int(section.size) - entrySize + 1, by: entrySize) {
        let entry = start.advanced(by: offset)
        guard entry.load(as: UInt64.self) == taskRegistrationMagic else { continue }
        let make = entry.load(fromByteOffset: 8, as: (@convention(c) () -> UnsafeMutableRawPointer).self)
        if let task = Unmanaged<AnyObject>.fromOpaque(make()).takeRetainedValue() as? any LaunchTask {
          tasks.append(task)
        }
      }
    }
    return tasks
  }
}
