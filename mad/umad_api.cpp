#include "mad/umad_api.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <endian.h>
#include <cerrno>
#include <cstring>

namespace ibsm::mad {

namespace {

UmadPort from_umad(const umad_ca_t& ca, const umad_port_t& p) {
  UmadPort u;
  LocalPort& lp = u.port;
  lp.ca_name = ca.ca_name;
  lp.port_num = p.portnum;
  lp.port_guid = be64toh(p.port_guid);
  lp.node_guid = be64toh(ca.node_guid);
  lp.lid = static_cast<Lid>(p.base_lid);
  lp.sm_lid = static_cast<Lid>(p.sm_lid);
  lp.lmc = static_cast<std::uint8_t>(p.lmc);
  lp.state = static_cast<PortState>(p.state);
  lp.phys_state = static_cast<std::uint8_t>(p.phys_state);
  u.link_layer = p.link_layer;
  return u;
}

// The errno of a failed call: libibumad returns -EIO or -EPERM for some failures and
// leaves the kernel's errno in errno.
int failure(int rc, int saved_errno) {
  if (rc >= 0) return rc;
  return saved_errno != 0 ? -saved_errno : rc;
}

// Opens issmN through the symbol `open`, as libibumad does for umadN. Our code is
// built with large-file support, which turns a plain open() into open64(); an
// LD_PRELOAD interposer that emulates the device (ibsim's umad2sim) only wraps
// open(), so the IsSM request would miss it.
int open_device(const char* path, int flags) {
  using OpenFn = int (*)(const char*, int, ...);
  auto fn = reinterpret_cast<OpenFn>(::dlsym(RTLD_DEFAULT, "open"));
  return fn != nullptr ? fn(path, flags) : ::open(path, flags);
}

class SystemUmad final : public UmadApi {
 public:
  int init() override {
    errno = 0;
    const int rc = umad_init();
    return failure(rc, errno);
  }
  std::vector<UmadPort> ports() override {
    std::vector<UmadPort> out;
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    const int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    for (int i = 0; i < n; ++i) {
      umad_ca_t ca{};
      if (umad_get_ca(names[i], &ca) < 0) continue;
      for (int p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; ++p) {
        if (ca.ports[p] != nullptr) out.push_back(from_umad(ca, *ca.ports[p]));
      }
      umad_release_ca(&ca);
    }
    return out;
  }
  int open_port(const std::string& ca, int port) override {
    errno = 0;
    const int rc = umad_open_port(ca.c_str(), port);
    return failure(rc, errno);
  }
  int register_agent(int fd, int mgmt_class, int version, int rmpp_version, long* mask) override {
    errno = 0;
    const int rc =
        umad_register(fd, mgmt_class, version, static_cast<std::uint8_t>(rmpp_version), mask);
    return failure(rc, errno);
  }
  int issm_path(const std::string& ca, int port, std::string& path) override {
    char buf[256];
    errno = 0;
    const int rc = umad_get_issm_path(ca.c_str(), port, buf, sizeof buf);
    if (rc != 0) return failure(rc < 0 ? rc : -rc, errno);
    path = buf;
    return 0;
  }
  int open_issm(const std::string& path) override {
    const int fd = open_device(path.c_str(), O_RDWR | O_NONBLOCK);
    return fd >= 0 ? fd : -errno;
  }
  void unregister_agent(int fd, int agent) override { umad_unregister(fd, agent); }
  void close_port(int fd) override { umad_close_port(fd); }
  void close_issm(int fd) override { ::close(fd); }
  bool simulated() const override {
    return ::dlsym(RTLD_DEFAULT, "sim_client_init") != nullptr;  // umad2sim's client symbol
  }
};

}  // namespace

UmadApi& system_umad() {
  static SystemUmad api;
  return api;
}

std::string likely_cause(UmadStep step, int err) {
  switch (err) {
    case ENOENT:
    case ENODEV:
    case ENXIO:
    case EOPNOTSUPP:
      return step == UmadStep::kRegisterClass
                 ? "the kernel refuses: the device went away or its driver has no MAD support"
                 : "the ib_umad kernel module is not loaded, or this port has no umad device "
                   "(modprobe ib_umad; ls /dev/infiniband)";
    case EACCES:
    case EPERM:
      return step == UmadStep::kRegisterClass
                 ? "no permission, or the kernel refuses this registration (a QP0 agent needs "
                   "root; some kernels refuse SMI registrations: check dmesg)"
                 : "no permission: run ibsm as root, or give its user the /dev/infiniband "
                   "devices";
    case EBUSY:
    case EAGAIN:
    case EEXIST:
      return step == UmadStep::kIssm
                 ? "another subnet manager holds IsSM on this port (opensm, or a second ibsm)"
                 : "another SM or MAD agent holds the class on this port (stop opensm or the "
                   "other agent)";
    case EINVAL:
      return step == UmadStep::kRegisterClass
                 ? "another SM or MAD agent holds the class on this port (the kernel answers "
                   "EINVAL for a method already in use), or the kernel refuses the "
                   "registration (check dmesg)"
                 : "the kernel refuses the request (check dmesg and the kernel version)";
    default:
      return "the kernel refuses the request (check dmesg and the kernel version)";
  }
}

bool issm_refusal_fatal(int err) {
  return err == EAGAIN || err == EBUSY || err == EACCES || err == EPERM;
}

}  // namespace ibsm::mad
