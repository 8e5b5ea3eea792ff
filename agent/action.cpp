#include "agent/action.hpp"

#include <cstdio>

#include "agent/ipoib_rules.hpp"

namespace ibsm::agent {

std::string_view kind_name(ActionKind k) {
  switch (k) {
    case ActionKind::kWriteFile:
      return "write-file";
    case ActionKind::kRemoveFile:
      return "remove-file";
    case ActionKind::kWriteAttribute:
      return "write-attribute";
    case ActionKind::kConfigfsMkdir:
      return "configfs-mkdir";
    case ActionKind::kCreateChild:
      return "create-child";
    case ActionKind::kSetMode:
      return "set-mode";
    case ActionKind::kSetMtu:
      return "set-mtu";
    case ActionKind::kSetAlias:
      return "set-alias";
    case ActionKind::kAddAddress:
      return "add-address";
    case ActionKind::kLinkUp:
      return "link-up";
    case ActionKind::kDeleteLink:
      return "delete-link";
    case ActionKind::kAddRdmaLink:
      return "add-rdma-link";
    case ActionKind::kLoadModule:
      return "load-module";
    case ActionKind::kRun:
      return "run";
  }
  return "?";
}

std::string Action::describe() const {
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", file_mode);
  switch (kind) {
    case ActionKind::kWriteFile:
      return "write " + path + " (mode " + mode +
             (backup ? ", original kept as .ibsm-agent-bak" : "") + ")";
    case ActionKind::kRemoveFile:
      return "remove " + path;
    case ActionKind::kWriteAttribute:
      return "write \"" + value + "\" to " + path;
    case ActionKind::kConfigfsMkdir:
      return "mkdir " + path;
    case ActionKind::kCreateChild:
      return "create " + iface + " on " + parent + " (P_Key " + format_pkey(pkey) + ", " + value +
             ")";
    case ActionKind::kSetMode:
      return "set " + iface + " mode " + value;
    case ActionKind::kSetMtu:
      return "set " + iface + " mtu " + value;
    case ActionKind::kSetAlias:
      return "set " + iface + " alias " + value;
    case ActionKind::kAddAddress:
      return "add address " + value + " to " + iface;
    case ActionKind::kLinkUp:
      return "set " + iface + " up";
    case ActionKind::kDeleteLink:
      return "delete " + iface;
    case ActionKind::kAddRdmaLink:
      return "rdma link add " + iface + " type " + value + " netdev " + parent;
    case ActionKind::kLoadModule:
      return "load module " + value;
    case ActionKind::kRun: {
      std::string s = "run";
      for (const auto& a : argv)
        s += " " + a;
      return s;
    }
  }
  return "?";
}

}  // namespace ibsm::agent
