// A typed plan action: one change the agent would make, what it is for and
// whether it interrupts traffic. The planner creates them, apply runs them in
// order, and both print them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ibsm::agent {

enum class ActionKind {
  kWriteFile,       // path, content, file_mode; backup = keep a copy of the foreign original
  kRemoveFile,      // path (owned files only, --prune)
  kWriteAttribute,  // sysfs/configfs attribute: path, value
  kConfigfsMkdir,   // path
  kCreateChild,     // iface, parent, pkey, value = mode
  kSetMode,         // iface, value = mode
  kSetMtu,          // iface, value = mtu
  kSetAlias,        // iface, value = alias (the direct backend's ownership marker)
  kAddAddress,      // iface, value = address/prefix
  kLinkUp,          // iface
  kDeleteLink,      // iface (owned IPoIB children only, --prune)
  kAddRdmaLink,     // iface = rdma link name, value = type, parent = netdev
  kLoadModule,      // value = module
  kRun,             // argv: reload or activate through the network manager
};

std::string_view kind_name(ActionKind k);

struct Action {
  ActionKind kind = ActionKind::kWriteFile;
  std::string resource;     // what it belongs to: "ipoib ib0.8002", "roce mlx5_2/1", "modules rdma"
  std::string reason;       // why: the difference between desired and observed
  bool disruptive = false;  // interrupts traffic on `iface`
  // Disruptive in name only, safe without a person: an MTU change within the broadcast
  // group's limit does not take the interface down (watch applies it; a mode switch,
  // which flushes paths, waits for `apply`).
  bool unattended = false;
  std::string iface;
  std::string parent;
  std::uint16_t pkey = 0;
  std::string path;
  std::string content;
  unsigned file_mode = 0644;
  bool backup = false;
  // kWriteFile/kRemoveFile: the file's content now (empty optional: it does not exist),
  // for plan's unified diff.
  std::optional<std::string> previous;
  std::string value;
  std::vector<std::string> argv;
  // kRun: commands that put back what `argv` changes (e.g. a dcb set with the values
  // dcb showed before), run by a rollback after a later action failed; empty: none.
  std::vector<std::vector<std::string>> undo;

  // One line: "create ib0.8002 on ib0 (P_Key 0x8002, datagram)".
  std::string describe() const;
};

}  // namespace ibsm::agent
