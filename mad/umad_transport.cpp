#include "mad/umad_transport.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/umad.h>
#include <unistd.h>

#include <endian.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
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

MethodMask method_mask(std::initializer_list<unsigned> methods) {
  MethodMask mask{};
  constexpr unsigned kBits = 8 * sizeof(long);
  for (unsigned bit : methods) {
    if (bit < mask.size() * kBits) mask[bit / kBits] |= 1L << (bit % kBits);
  }
  return mask;
}

MethodMask sa_agent_method_mask() {
  return method_mask({0x01u, 0x02u, 0x12u, 0x14u, 0x15u});  // Get Set GetTable GetMulti Delete
}

// umad2sim's write() holds its device mutex while it blocks on ibsim's socket,
// and its receiver thread needs that mutex to hand ibsim's answers over; ibsim
// (one thread) retries a write to our full socket until it goes through. So
// ibsim waits for us and we wait for ibsim, forever, once its queue from us
// (max_dgram_qlen + 1 datagrams), the answer it holds, our queue (qlen + 1)
// and the answer our receiver holds are all taken (2 * qlen + 4 unanswered
// requests, 24 with Linux's default of 10) and we write one more. At most
// 2 * qlen leaves 4 of those places to MADs that are not answers to our SMPs
// (other clients' SA requests, traps, our SA responses on their way). More
// would not be faster: on fattree-2048 SUBNET UP takes as long with 11 in
// flight as with 20, 24 or 32; the socket round trips cost CPU time, and that
// is what bounds it (docs/benchmarks.md, 2026-11-23).
unsigned umad2sim_max_unanswered() {
  unsigned qlen = 10;  // Linux's default
  if (std::ifstream in("/proc/sys/net/unix/max_dgram_qlen"); in) {
    unsigned v = 0;
    if (in >> v && v > 0) qlen = v;
  }
  return 2 * qlen;
}

SaAgentRegistration register_sa_agent(bool simulated, const std::function<int(int)>& reg) {
  SaAgentRegistration r;
  r.agent = reg(simulated ? 0 : 1);
  if (r.agent >= 0 && !simulated) {
    r.rmpp_version = 1;
    r.max_length = kRmppMaxLength;
    r.status = "SA agent registered with kernel RMPP";
    return r;
  }
  if (r.agent < 0 && !simulated) r.agent = reg(0);  // a kernel without RMPP for us
  r.rmpp_version = 0;
  r.max_length = 256;
  r.status = simulated ? "SA agent without RMPP (ibsim's umad2sim carries single MADs): "
                         "tables longer than one MAD are trimmed to its first records"
                       : "SA agent without RMPP (kernel refused rmpp_version 1): "
                         "tables longer than one MAD are trimmed to its first records";
  return r;
}

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
  // The Subnet Administrator's GSI agent (class 0x03 version 2). Registered here, on
  // the SM's port, because requests to QP1 of the SM port must find an agent of their
  // class: ibsim's umad2sim even kills a process that receives a class it never
  // registered. umad2sim is detected by its client symbol.
  MethodMask sa_mask = sa_agent_method_mask();  // umad_register takes a non-const mask
  const bool simulated = ::dlsym(RTLD_DEFAULT, "sim_client_init") != nullptr;
  t->simulated_ = simulated;
  SaAgentRegistration sa = register_sa_agent(simulated, [&](int rmpp_version) {
    return umad_register(t->fd_, kClassSubnAdm, 2, static_cast<std::uint8_t>(rmpp_version),
                         sa_mask.data());
  });
  if (sa.agent < 0) {
    return fail(kErrAgentRegister, "cannot register the SA agent (class 0x03) on " +
                                       t->port_.ca_name + " port " +
                                       std::to_string(t->port_.port_num));
  }
  t->agent_sa_ = sa.agent;
  t->gsi_max_length_ = sa.max_length;
  if (simulated) t->max_unanswered_ = umad2sim_max_unanswered();
  t->gsi_status_ = std::move(sa.status);
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
  if (agent_sa_ >= 0) umad_unregister(fd_, agent_sa_);
  for (int agent : agent_by_class_)
    if (agent >= 0) umad_unregister(fd_, agent);
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
  // Room for an RMPP-reassembled request (the kernel hands it over whole); a
  // longer one fails with ENOSPC and is read again with the length it needs.
  if (recv_buf_.size() < sizeof(ib_user_mad) + 8192) recv_buf_.resize(sizeof(ib_user_mad) + 8192);
  int len = static_cast<int>(recv_buf_.size() - sizeof(ib_user_mad));
  int rc = umad_recv(fd_, recv_buf_.data(), &len, static_cast<int>(max_wait.count()));
  if (rc < 0 && rc == -ENOSPC && len > 0 && len < (1 << 24)) {
    recv_buf_.resize(sizeof(ib_user_mad) + static_cast<std::size_t>(len));
    rc = umad_recv(fd_, recv_buf_.data(), &len, 0);
  }
  if (rc < 0) return std::nullopt;
  auto* um = reinterpret_cast<ib_user_mad*>(recv_buf_.data());
  IncomingMad in;
  const std::size_t total = len < 0 ? 0 : static_cast<std::size_t>(len);
  const std::size_t avail = recv_buf_.size() - sizeof(ib_user_mad);
  in.length = std::min(total, avail);
  const auto* mad = static_cast<const std::uint8_t*>(umad_get_mad(um));
  std::memcpy(in.bytes.data(), mad, std::min<std::size_t>(256, avail));
  if (in.length > 256) in.tail.assign(mad + 256, mad + in.length);
  in.status = umad_status(um);
  in.slid = be16toh(um->addr.lid);
  in.sqpn = be32toh(um->addr.qpn);
  in.from.lid = in.slid;
  in.from.qpn = in.sqpn;
  in.from.qkey = be32toh(um->addr.qkey);
  in.from.sl = um->addr.sl;
  in.from.pkey_index = um->addr.pkey_index;
  in.from.grh = um->addr.grh_present != 0;
  if (in.from.grh) {
    std::memcpy(in.from.gid.data(), um->addr.gid, 16);
    in.from.hop_limit = um->addr.hop_limit;
    in.from.traffic_class = um->addr.traffic_class;
    in.from.flow_label = be32toh(um->addr.flow_label);
  }
  return in;
}

Status UmadTransport::send_gsi(std::span<const std::uint8_t> mad, const MadAddress& to,
                               std::uint32_t timeout_ms) {
  // The SA's agent, or the client agent of another class (register_gsi_class).
  const std::uint8_t mgmt_class = mad.size() > 1 ? mad[1] : 0;
  const int agent = mgmt_class == kClassSubnAdm ? agent_sa_ : agent_by_class_[mgmt_class];
  if (agent < 0)
    return fail(kErrSendFailed, "no agent registered for class " + std::to_string(mgmt_class));
  if (mad.size() < 24 || mad.size() > gsi_max_length_) {
    return fail(kErrSendFailed, "GSI MAD of " + std::to_string(mad.size()) + " bytes (max " +
                                    std::to_string(max_length) + ")");
  }
  // The exact length: the kernel pads a single MAD to 256 bytes and segments an
  // RMPP-active one; umad2sim passes the length on, and clients count records by it.
  send_buf_.assign(sizeof(ib_user_mad) + std::max<std::size_t>(mad.size(), 256), 0);
  auto* um = reinterpret_cast<ib_user_mad*>(send_buf_.data());
  std::memcpy(umad_get_mad(um), mad.data(), mad.size());
  umad_set_addr(um, to.lid, static_cast<int>(to.qpn), to.sl, static_cast<int>(to.qkey));
  umad_set_pkey(um, to.pkey_index);
  if (to.grh) {
    ib_mad_addr_t a{};
    a.grh_present = 1;
    std::memcpy(a.gid, to.gid.data(), 16);
    a.hop_limit = to.hop_limit;
    a.traffic_class = to.traffic_class;
    a.flow_label = to.flow_label;  // umad_set_grh converts to network order
    umad_set_grh(um, &a);
  }
  const int length = static_cast<int>(mad.size());
  if (umad_send(fd_, agent, um, length, static_cast<int>(timeout_ms), 0) < 0) {
    return fail(kErrSendFailed, std::string("umad_send (SA): ") + std::strerror(errno));
  }
  return {};
}

std::string umad2sim_refuses_class(std::uint8_t mgmt_class) {
  const unsigned low = mgmt_class & 0xfu;
  if (mgmt_class == kClassSmiLid || mgmt_class == kClassSmiDirected || mgmt_class == 0x04)
    return {};
  if (low != 0x1 && low != 0x4) return {};
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "ibsim's umad2sim would hand class 0x%02x MADs to its class 0x%02x handlers "
                "(it dispatches on class & 0xf) and apply them as those attributes",
                static_cast<unsigned>(mgmt_class), low);
  return buf;
}

Status UmadTransport::register_gsi_class(std::uint8_t mgmt_class, std::uint8_t class_version) {
  if (agent_by_class_[mgmt_class] >= 0) return {};
  if (simulated_) {
    if (auto why = umad2sim_refuses_class(mgmt_class); !why.empty())
      return fail(kErrAgentRegister, why);
  }
  // A client agent: no unsolicited requests, only the answers to its own sends.
  const int agent = umad_register(fd_, mgmt_class, class_version, 0, nullptr);
  if (agent < 0) {
    return fail(kErrAgentRegister, "cannot register an agent for class " +
                                       std::to_string(mgmt_class) + " on " + port_.ca_name +
                                       " port " + std::to_string(port_.port_num));
  }
  agent_by_class_[mgmt_class] = agent;
  return {};
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
