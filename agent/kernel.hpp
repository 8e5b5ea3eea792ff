// The runtime seam: every change that is not a file write. LiveKernel drives
// the host through iproute2, rdma, modprobe and configfs (iproute2 semantics);
// TreeKernel (tree_kernel.hpp) plays the kernel's visible part inside a --root
// tree, for tests and image builds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "agent/fs.hpp"
#include "common/result.hpp"

namespace ibsm::agent {

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual Status create_ipoib_child(const std::string& parent, const std::string& name,
                                    std::uint16_t pkey, const std::string& mode) = 0;
  virtual Status set_ipoib_mode(const std::string& iface, const std::string& mode) = 0;
  virtual Status set_mtu(const std::string& iface, int mtu) = 0;
  virtual Status set_alias(const std::string& iface, const std::string& alias) = 0;
  virtual Status set_up(const std::string& iface) = 0;
  virtual Status delete_link(const std::string& iface) = 0;
  virtual std::vector<std::string> addresses(const std::string& iface) const = 0;
  virtual Status add_address(const std::string& iface, const std::string& cidr) = 0;
  virtual Status add_rdma_link(const std::string& name, const std::string& type,
                               const std::string& netdev) = 0;
  virtual Status load_module(const std::string& module) = 0;
  // mkdir in configfs: the kernel populates the new directory (rdma_cm: ports/<n>).
  virtual Status configfs_mkdir(const std::string& path) = 0;
  // A network manager's command (nmcli, networkctl).
  virtual Status run(const std::vector<std::string>& argv) = 0;
};

struct CommandResult {
  int status = -1;     // exit status; -1 = could not run
  std::string output;  // stdout and stderr
};

// The process seam under LiveKernel.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  virtual CommandResult run(const std::vector<std::string>& argv) const = 0;
};

class ProcessRunner final : public CommandRunner {
 public:
  CommandResult run(const std::vector<std::string>& argv) const override;
};

class LiveKernel final : public Kernel {
 public:
  LiveKernel(Fs& fs, const CommandRunner& runner) : fs_(fs), runner_(runner) {}
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

 private:
  Status exec(const std::vector<std::string>& argv) const;
  Fs& fs_;
  const CommandRunner& runner_;
};

// "inet 10.0.0.5/16" tokens of `ip -o addr show` output.
std::vector<std::string> parse_ip_addr_output(const std::string& output);

}  // namespace ibsm::agent
