// A kernel stand-in for --root trees: each operation leaves the files the real
// kernel would show in sysfs/configfs (a child's /sys/class/net/<name>/{pkey,mode,
// parent}, /sys/module/<m>, rdma_cm ports/<n>/). Used by the unit tests and by
// `--root` runs, where there is no live kernel to change. Addresses, which sysfs
// does not show, are kept in /sys/class/net/<if>/ibsm-tree-addresses.
// Manager commands (nmcli, networkctl) are recorded, not run.
#pragma once

#include "agent/kernel.hpp"

namespace ibsm::agent {

class TreeKernel final : public Kernel {
 public:
  explicit TreeKernel(Fs& fs) : fs_(fs) {}
  Status create_ipoib_child(const std::string& parent, const std::string& name, std::uint16_t pkey,
                            const std::string& mode) override;
  Status set_ipoib_mode(const std::string& iface, const std::string& mode) override;
  Status set_mtu(const std::string& iface, int mtu) override;
  Status set_alias(const std::string& iface, const std::string& alias) override;
  Status set_up(const std::string& iface) override;
  Status delete_link(const std::string& iface) override;
  std::vector<std::string> addresses(const std::string& iface) const override;
  Status add_address(const std::string& iface, const std::string& cidr) override;
  Status add_rdma_link(const std::string& name, const std::string& type,
                       const std::string& netdev) override;
  Status load_module(const std::string& module) override;
  Status configfs_mkdir(const std::string& path) override;
  Status run(const std::vector<std::string>& argv) override;

  const std::vector<std::vector<std::string>>& commands() const { return commands_; }

 private:
  Status need_netdev(const std::string& iface) const;
  Fs& fs_;
  std::vector<std::vector<std::string>> commands_;
};

}  // namespace ibsm::agent
