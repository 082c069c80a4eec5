import Foundation

/// The `config.json` of a launch's container: what `runc spec` writes, made for a harness
/// launch: no terminal, the target's argv and environment, the host's root read-only with the
/// launch's volumes bound read-write, new PID, mount, IPC and UTS namespaces (the network is
/// the host's, so probes and requests reach the target on 127.0.0.1), and the cgroup limits.
struct OCIConfig {
  var arguments: [String]
  var environment: [String: String]
  var workingDirectory: String
  /// Host paths bound read-write at the same place (the state directory, the events' folder).
  var volumes: [String]
  /// Host paths bound read-only at the same place (the target's folder, in case it is on a
  /// mount of its own that the bind of `/` does not carry).
  var readOnlyVolumes: [String]
  var cgroupsPath: String
  var memoryBytes: Int64?
  var pids: Int64?

  /// Docker's default capabilities: what a server in a container usually has.
  static let capabilities = [
    "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD", "CAP_NET_RAW", "CAP_SETGID",
    "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE", "CAP_SYS_CHROOT", "CAP_KILL",
    "CAP_AUDIT_WRITE",
  ]

  var json: [String: Any] {
    let caps = Self.capabilities
    var resources: [String: Any] = ["devices": [["allow": false, "access": "rwm"]]]
    if let memoryBytes {
      // swap = limit: memory and swap together are limited, so the OOM killer acts at the
      // limit instead of the process swapping (GitHub's runners have swap).
      resources["memory"] = ["limit": memoryBytes, "swap": memoryBytes]
    }
    if let pids { resources["pids"] = ["limit": pids] }
    let bind = { (path: String, mode: String) -> [String: Any] in
      ["destination": path, "type": "bind", "source": path, "options": ["rbind", mode]]
    }
    let mounts: [[String: Any]] =
      [
        ["destination": "/proc", "type": "proc", "source": "proc"],
        [
          "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
          "options": ["nosuid", "strictatime", "mode=755", "size=65536k"],
        ],
        [
          "destination": "/dev/pts", "type": "devpts", "source": "devpts",
          "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"],
        ],
        [
          "destination": "/dev/shm", "type": "tmpfs", "source": "shm",
          "options": ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"],
        ],
        [
          "destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue", "options": ["nosuid", "noexec", "nodev"],
        ],
        ["destination": "/sys", "type": "sysfs", "source": "sysfs", "options": ["nosuid", "noexec", "nodev", "ro"]],
        [
          "destination": "/sys/fs/cgroup", "type": "cgroup", "source": "cgroup",
          "options": ["nosuid", "noexec", "nodev", "relatime", "ro"],
        ],
        // A writable /tmp, as an image's is.
        ["destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev", "mode=1777"]],
      ] + readOnlyVolumes.map { bind($0, "ro") } + volumes.map { bind($0, "rw") }
    return [
      "ociVersion": "1.0.2-dev",
      "process": [
        "terminal": false,
        "user": ["uid": 0, "gid": 0],
        "args": arguments,
        "env": environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" },
        "cwd": workingDirectory,
        "capabilities": ["bounding": caps, "effective": caps, "permitted": caps],
        "noNewPrivileges": true,
      ] as [String: Any],
      "root": ["path": "rootfs", "readonly": true],
      "hostname": "chaos",
      "mounts": mounts,
      "linux": [
        "cgroupsPath": cgroupsPath,
        "resources": resources,
        "namespaces": [["type": "pid"], ["type": "ipc"], ["type": "uts"], ["type": "mount"]],
        "maskedPaths": [
          "/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats", "/proc/timer_list",
          "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi",
        ],
        "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"],
      ] as [String: Any],
    ]
  }
}
