#include "mad/umad_transport.hpp"

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
  for (const UmadPort& p : system_umad().ports())
    out.push_back(p.port);
  return out;
}

namespace {

// "ENOENT": the errno's name, which operators search for.
std::string errno_name(int err) {
  const char* n = ::strerrorname_np(err);
  return n != nullptr ? std::string(n) : "errno " + std::to_string(err);
}

// "mlx5_0 port 1": the device and port every open error names.
std::string port_name(const LocalPort& p) {
  return p.ca_name + " port " + std::to_string(p.port_num);
}

Error refused(ErrorId id, const std::string& what, const LocalPort& p, UmadStep step, int rc) {
  const int err = rc < 0 ? -rc : rc;
  return Error{id, what + " on " + port_name(p) + ": " + errno_name(err) + " (" +
                       std::strerror(err) + "): " + likely_cause(step, err)};
}

}  // namespace

bool usable_sm_port(const UmadPort& p) {
  // The kernel says "InfiniBand" or "Ethernet"; ibsim's umad2sim says "IB".
  return p.link_layer != "Ethernet";
}

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(Guid port_guid) {
  return open(port_guid, system_umad());
}

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(Guid port_guid, UmadApi& api) {
  if (const int rc = api.init(); rc < 0) {
    const int err = -rc;
    return fail(kErrUmadUnavailable, std::string("umad_init: ") + errno_name(err) + " (" +
                                         std::strerror(err) +
                                         "): " + likely_cause(UmadStep::kInit, err));
  }
  const auto ports = api.ports();
  if (ports.empty()) {
    return fail(kErrUmadUnavailable,
                "no InfiniBand port has a umad device: " + likely_cause(UmadStep::kInit, ENOENT));
  }
  const UmadPort* chosen = nullptr;
  if (port_guid != 0) {
    for (const auto& p : ports)
      if (p.port.port_guid == port_guid) chosen = &p;
    if (chosen == nullptr) {
      std::string known;
      for (const auto& p : ports)
        known += " " + format_guid(p.port.port_guid);
      return fail(kErrPortNotFound,
                  "no local port has GUID " + format_guid(port_guid) + "; ports:" + known);
    }
  } else {
    // OpenSM's default: the first port whose physical link is up; an SM needs an
    // InfiniBand port (a RoCE port has a umad device too).
    for (const auto& p : ports)
      if (chosen == nullptr && usable_sm_port(p) && p.port.phys_state == 5) chosen = &p;  // LinkUp
    for (const auto& p : ports)
      if (chosen == nullptr && usable_sm_port(p)) chosen = &p;
    if (chosen == nullptr) chosen = &ports.front();
  }
  if (!usable_sm_port(*chosen)) {
    return fail(kErrPortNotInfiniband,
                port_name(chosen->port) + " (GUID " + format_guid(chosen->port.port_guid) +
                    ") has link layer " + chosen->link_layer +
                    ": a subnet manager runs only on an InfiniBand port; choose one with -g "
                    "(ibstat -p lists them)");
  }

  std::unique_ptr<UmadTransport> t(new UmadTransport());
  t->api_ = &api;
  t->port_ = chosen->port;
  const int fd = api.open_port(t->port_.ca_name, t->port_.port_num);
  if (fd < 0) {
    return fail(refused(kErrUmadOpen, "cannot open the umad device (umad_open_port)", t->port_,
                        UmadStep::kOpenDevice, fd));
  }
  t->fd_ = fd;
  // Requests we answer as an SM: Get/Set SMInfo from other SMs, Traps from nodes.
  long methods[16 / sizeof(long)] = {};
  for (Method m : {Method::kGet, Method::kSet, Method::kTrap, Method::kTrapRepress}) {
    const unsigned bit = static_cast<unsigned>(m);
    methods[bit / (8 * sizeof(long))] |= 1L << (bit % (8 * sizeof(long)));
  }
  const auto register_class = [&](int mgmt_class, int& agent) -> Status {
    const int rc = api.register_agent(t->fd_, mgmt_class, 1, 0, methods);
    if (rc >= 0) {
      agent = rc;
      return {};
    }
    char what[96];
    std::snprintf(what, sizeof what, "cannot register management class %d (0x%02x) version 1",
                  mgmt_class, mgmt_class);
    return fail(refused(kErrClassRegister, what, t->port_, UmadStep::kRegisterClass, rc));
  };
  if (auto st = register_class(kClassSmiDirected, t->agent_dr_); !st.ok()) return fail(st.error());
  if (auto st = register_class(kClassSmiLid, t->agent_lid_); !st.ok()) return fail(st.error());
  // The Subnet Administrator's GSI agent (class 0x03 version 2). Registered here, on
  // the SM's port, because requests to QP1 of the SM port must find an agent of their
  // class: ibsim's umad2sim even kills a process that receives a class it never
  // registered.
  MethodMask sa_mask = sa_agent_method_mask();  // umad_register takes a non-const mask
  const bool simulated = api.simulated();
  t->simulated_ = simulated;
  int sa_rc = 0;
  SaAgentRegistration sa = register_sa_agent(simulated, [&](int rmpp_version) {
    sa_rc = api.register_agent(t->fd_, kClassSubnAdm, 2, rmpp_version, sa_mask.data());
    return sa_rc;
  });
  if (sa.agent < 0) {
    return fail(refused(kErrClassRegister,
                        "cannot register management class 3 (0x03, SA) version 2", t->port_,
                        UmadStep::kRegisterClass, sa_rc));
  }
  t->agent_sa_ = sa.agent;
  t->gsi_max_length_ = sa.max_length;
  if (simulated) t->max_unanswered_ = umad2sim_max_unanswered();
  t->gsi_status_ = std::move(sa.status);
  std::string issm;
  if (api.issm_path(t->port_.ca_name, t->port_.port_num, issm) != 0) {
    t->issm_status_ = "no issm device for this port; IsSM not raised";
  } else {
    // Holding issmN open keeps IsSM set in PortInfo.CapabilityMask; the kernel
    // clears it when the file is closed (also when we crash).
    const int issm_fd = api.open_issm(issm);
    if (issm_fd >= 0) {
      t->issm_fd_ = issm_fd;
      t->issm_status_ = "IsSM raised through " + issm;
    } else if (issm_refusal_fatal(-issm_fd)) {
      return fail(refused(kErrIssm, "cannot get the SM capability (open " + issm + ")", t->port_,
                          UmadStep::kIssm, issm_fd));
    } else {
      // Other SMs do not see this one as an SM; it still runs (ibsim refuses some opens).
      t->issm_refused_ = true;
      t->issm_status_ = format_error_id(kErrIssm) + ": " +
                        refused(kErrIssm, "IsSM not raised (open " + issm + ")", t->port_,
                                UmadStep::kIssm, issm_fd)
                            .message;
    }
  }
  return t;
}

UmadTransport::~UmadTransport() {
  if (api_ == nullptr) return;
  if (agent_dr_ >= 0) api_->unregister_agent(fd_, agent_dr_);
  if (agent_lid_ >= 0) api_->unregister_agent(fd_, agent_lid_);
  if (agent_sa_ >= 0) api_->unregister_agent(fd_, agent_sa_);
  for (int agent : agent_by_class_)
    if (agent >= 0) api_->unregister_agent(fd_, agent);
  if (fd_ >= 0) api_->close_port(fd_);
  if (issm_fd_ >= 0) api_->close_issm(issm_fd_);
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
                                    std::to_string(gsi_max_length_) + ")");
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
  const int agent = api_->register_agent(fd_, mgmt_class, class_version, 0, nullptr);
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
  if (api_ != &system_umad()) return lp;  // a test's fake: nothing to re-read
  if (umad_get_port(port_.ca_name.c_str(), port_.port_num, &p) == 0) {
    lp.lid = static_cast<Lid>(p.base_lid);
    lp.sm_lid = static_cast<Lid>(p.sm_lid);
    lp.lmc = static_cast<std::uint8_t>(p.lmc);
    lp.state = static_cast<PortState>(p.state);
    lp.phys_state = static_cast<std::uint8_t>(p.phys_state);
    umad_release_port(&p);
  }
  return lp;
}

}  // namespace ibsm::mad
