// The libibumad calls that open the SM's port (device, MAD agents, IsSM), behind an
// interface so that a test can refuse each step (tests/unit/mad/umad_open_test.cpp),
// and the rules that turn a refusal into one operator-readable error: which step,
// which device and port, the errno, and the likely cause.
#pragma once

#include <string>
#include <vector>

#include "mad/transport.hpp"

namespace ibsm::mad {

// A local port as libibumad lists it, with its link layer ("InfiniBand",
// "Ethernet" for a RoCE port, "" when the kernel does not say).
struct UmadPort {
  LocalPort port;
  std::string link_layer;
};

// Each call returns what libibumad returns, except that failures are the negative
// errno the kernel gave (libibumad itself reports some as -EIO / -EPERM and leaves
// the real one in errno).
class UmadApi {
 public:
  virtual ~UmadApi() = default;
  virtual int init() = 0;                                      // umad_init: 0 or -errno
  virtual std::vector<UmadPort> ports() = 0;                   // every port of every CA
  virtual int open_port(const std::string& ca, int port) = 0;  // fd or -errno
  // umad_register: agent id or -errno. `mask` is umad_register's method mask.
  virtual int register_agent(int fd, int mgmt_class, int version, int rmpp_version, long* mask) = 0;
  // umad_get_issm_path into `path`: 0 or -errno.
  virtual int issm_path(const std::string& ca, int port, std::string& path) = 0;
  virtual int open_issm(const std::string& path) = 0;  // fd or -errno
  virtual void unregister_agent(int fd, int agent) = 0;
  virtual void close_port(int fd) = 0;
  virtual void close_issm(int fd) = 0;
  // Whether ibsim's umad2sim stands in for the kernel (single MADs, no RMPP).
  virtual bool simulated() const = 0;
};

// The real libibumad (and the kernel behind it, or umad2sim when preloaded).
UmadApi& system_umad();

// The steps of opening the port, for the messages.
enum class UmadStep : std::uint8_t { kInit, kOpenDevice, kRegisterClass, kIssm };

// The likely cause of `err` (a positive errno) at `step`, in words an operator acts
// on: the module not loaded, no permission, another SM or agent holding the class or
// IsSM, or a kernel that refuses.
std::string likely_cause(UmadStep step, int err);

// Whether an IsSM refusal (positive errno) stops the SM: another SM holds IsSM, or
// no permission. Other refusals leave the SM running without IsSM (ibsim's
// simulated issm refuses some opens).
bool issm_refusal_fatal(int err);

}  // namespace ibsm::mad
