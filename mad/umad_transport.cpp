#include "mad/umad_transport.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <endian.h>
#include <cerrno>
#include <cstring>
#include <vector>

#include "mad/errors.hpp"

namespace ibsm::mad {

namespace {

LocalPort from_umad(const umad_ca_t& ca, const umad_port_t& p) {
  LocalPort lp;
  lp.ca_name = ca.ca_name;
  lp.port_num = p.portnum;
  lp.port_guid = be64toh(p.port_guid);
  lp.node_guid = be64toh(ca.node_guid);
  lp.lid = static_cast<Lid>(p.base_lid);
  lp.sm_lid = static_cast<Lid>(p.sm_lid);
  lp.lmc = static_cast<std::uint8_t>(p.lmc);
  lp.state = static_cast<PortState>(p.state);
  lp.phys_state = static_cast<std::uint8_t>(p.phys_state);
  return lp;
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

}  // namespace

std::vector<LocalPort> list_local_ports() {
  std::vector<LocalPort> out;
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

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(Guid port_guid) {
  if (umad_init() < 0) return fail(kErrPortOpen, "umad_init failed: is ib_umad loaded?");
  const auto ports = list_local_ports();
  if (ports.empty()) return fail(kErrPortNotFound, "no InfiniBand ports found");
  const LocalPort* chosen = nullptr;
  if (port_guid != 0) {
    for (const auto& p : ports)
      if (p.port_guid == port_guid) chosen = &p;
    if (chosen == nullptr) {
      std::string known;
      for (const auto& p : ports)
        known += " " + format_guid(p.port_guid);
      return fail(kErrPortNotFound,
                  "no local port has GUID " + format_guid(port_guid) + "; ports:" + known);
    }
  } else {
    for (const auto& p : ports)
      if (chosen == nullptr && p.phys_state == 5) chosen = &p;  // LinkUp
    if (chosen == nullptr) chosen = &ports.front();
  }

  std::unique_ptr<UmadTransport> t(new UmadTransport());
  t->port_ = *chosen;
  t->fd_ = umad_open_port(t->port_.ca_name.c_str(), t->port_.port_num);
  if (t->fd_ < 0) {
    return fail(kErrPortOpen, "umad_open_port(" + t->port_.ca_name + ", " +
                                  std::to_string(t->port_.port_num) + ") failed");
  }
  // Requests we answer as an SM: Get/Set SMInfo from other SMs, Traps from nodes.
  long methods[16 / sizeof(long)] = {};
  for (Method m : {Method::kGet, Method::kSet, Method::kTrap, Method::kTrapRepress}) {
    const unsigned bit = static_cast<unsigned>(m);
    methods[bit / (8 * sizeof(long))] |= 1L << (bit % (8 * sizeof(long)));
  }
  t->agent_dr_ = umad_register(t->fd_, kClassSmiDirected, 1, 0, methods);
  t->agent_lid_ = umad_register(t->fd_, kClassSmiLid, 1, 0, methods);
  if (t->agent_dr_ < 0 || t->agent_lid_ < 0) {
    return fail(kErrAgentRegister, "cannot register SMP agents on " + t->port_.ca_name + " port " +
                                       std::to_string(t->port_.port_num) +
                                       " (another SM on this port?)");
  }
  char issm[256];
  if (umad_get_issm_path(t->port_.ca_name.c_str(), t->port_.port_num, issm, sizeof issm) != 0) {
    t->issm_status_ = "no issm device for this port; IsSM not raised";
  } else {
    // Holding issmN open keeps IsSM set in PortInfo.CapabilityMask; the kernel
    // clears it when the file is closed (also when we crash).
    t->issm_fd_ = open_device(issm, O_RDWR | O_NONBLOCK);
    if (t->issm_fd_ < 0 && errno == EAGAIN) {
      return fail(kErrAgentRegister, std::string(issm) + " is held by another SM");
    }
    t->issm_status_ = t->issm_fd_ >= 0
                          ? std::string("IsSM raised through ") + issm
                          : std::string("cannot open ") + issm + ": " + std::strerror(errno);
  }
  return t;
}

UmadTransport::~UmadTransport() {
  if (agent_dr_ >= 0) umad_unregister(fd_, agent_dr_);
  if (agent_lid_ >= 0) umad_unregister(fd_, agent_lid_);
  if (fd_ >= 0) umad_close_port(fd_);
  if (issm_fd_ >= 0) ::close(issm_fd_);
}

Status UmadTransport::send(const OutgoingMad& mad) {
  alignas(8) std::uint8_t buf[sizeof(ib_user_mad) + 256];
  std::memset(buf, 0, sizeof buf);
  auto* um = reinterpret_cast<ib_user_mad*>(buf);
  std::memcpy(umad_get_mad(um), mad.bytes.data(), 256);
  umad_set_addr(um, mad.dlid, static_cast<int>(mad.dqpn), 0, 0);
  const int agent = mad.bytes[1] == kClassSmiDirected ? agent_dr_ : agent_lid_;
  // Retries are ours (SmpClient), so the kernel only times the request out once.
  if (umad_send(fd_, agent, um, 256, static_cast<int>(mad.timeout_ms), 0) < 0) {
    return fail(kErrSendFailed, std::string("umad_send: ") + std::strerror(errno));
  }
  return {};
}

std::optional<IncomingMad> UmadTransport::receive(std::chrono::milliseconds max_wait) {
  alignas(8) std::uint8_t buf[sizeof(ib_user_mad) + 256];
  int len = 256;
  const int rc = umad_recv(fd_, buf, &len, static_cast<int>(max_wait.count()));
  if (rc < 0) return std::nullopt;
  auto* um = reinterpret_cast<ib_user_mad*>(buf);
  IncomingMad in;
  in.length = static_cast<std::size_t>(len > 256 ? 256 : (len < 0 ? 0 : len));
  std::memcpy(in.bytes.data(), umad_get_mad(um), 256);
  in.status = umad_status(um);
  in.slid = be16toh(um->addr.lid);
  in.sqpn = be32toh(um->addr.qpn);
  return in;
}

LocalPort UmadTransport::local_port() const {
  umad_port_t p{};
  LocalPort lp = port_;
  if (umad_get_port(port_.ca_name.c_str(), port_.port_num, &p) == 0) {
    umad_ca_t ca{};
    std::strncpy(ca.ca_name, port_.ca_name.c_str(), sizeof ca.ca_name - 1);
    ca.node_guid = htobe64(port_.node_guid);
    lp = from_umad(ca, p);
    umad_release_port(&p);
  }
  return lp;
}

}  // namespace ibsm::mad
