#include "perfmgr/counter_db.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cinttypes>
#include <cstdlib>

#include "common/atomic_file.hpp"
#include "perfmgr/errors.hpp"

namespace ibsm::perfmgr {

const std::array<CounterName, kErrCount> kErrNames = {{
    {"SymbolErrorCounter", "symbol_err_cnt"},
    {"LinkErrorRecoveryCounter", "link_err_recover"},
    {"LinkDownedCounter", "link_downed"},
    {"PortRcvErrors", "rcv_err"},
    {"PortRcvRemotePhysicalErrors", "rcv_rem_phys_err"},
    {"PortRcvSwitchRelayErrors", "rcv_switch_relay_err"},
    {"PortXmitDiscards", "xmit_discards"},
    {"PortXmitConstraintErrors", "xmit_constraint_err"},
    {"PortRcvConstraintErrors", "rcv_constraint_err"},
    {"LocalLinkIntegrityErrors", "link_int_err"},
    {"ExcessiveBufferOverrunErrors", "buf_overrun_err"},
    {"VL15Dropped", "vl15_dropped"},
    {"PortXmitWait", "xmit_wait"},
}};

const std::array<CounterName, kDataCount> kDataNames = {{
    {"PortXmitData", "xmit_data"},
    {"PortRcvData", "rcv_data"},
    {"PortXmitPkts", "xmit_pkts"},
    {"PortRcvPkts", "rcv_pkts"},
    {"PortUnicastXmitPkts", "unicast_xmit_pkts"},
    {"PortUnicastRcvPkts", "unicast_rcv_pkts"},
    {"PortMulticastXmitPkts", "multicast_xmit_pkts"},
    {"PortMulticastRcvPkts", "multicast_rcv_pkts"},
}};

std::string ctime_text(std::time_t t) {
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  // ctime's layout: "%.3s %.3s%3d %.2d:%.2d:%.2d %d".
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

DbNode& CounterDb::writable(std::shared_ptr<DbNode>& n) {
  // Only this database's thread makes copies of it, so a count of one cannot grow
  // behind our back; a copy released on another thread meanwhile only costs a copy.
  if (n.use_count() > 1) {
    n = std::make_shared<DbNode>(*n);
  } else {
    // The count fell to one when another thread released its copy (a release
    // decrement): its reads of the node happen before our writes.
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *n;
}

DbNode& CounterDb::create(std::uint64_t guid, bool esp0, unsigned num_ports, std::string name,
                          std::time_t now) {
  auto [it, fresh] = nodes_.try_emplace(guid);
  if (fresh) it->second = std::make_shared<DbNode>();
  DbNode& n = writable(it->second);
  if (fresh) {
    n.guid = guid;
    n.esp0 = esp0;
    n.ports.resize(num_ports + 1);
    for (DbPort& p : n.ports) {
      p.last_reset = now;
      p.err_previous.time = now;
      p.dc_previous.time = now;
    }
  }
  n.name = std::move(name);
  return n;
}

DbNode* CounterDb::find(std::uint64_t guid) {
  auto it = nodes_.find(guid);
  return it == nodes_.end() ? nullptr : &writable(it->second);
}
const DbNode* CounterDb::find(std::uint64_t guid) const {
  auto it = nodes_.find(guid);
  return it == nodes_.end() ? nullptr : it->second.get();
}

void CounterDb::mark_active(std::uint64_t guid, bool active) {
  if (DbNode* n = find(guid)) n->active = active;
}

const DbPort* CounterDb::port(std::uint64_t guid, unsigned p) const {
  const DbNode* n = find(guid);
  return n != nullptr && valid_port(*n, p) ? &n->ports[p] : nullptr;
}

bool CounterDb::add_err(std::uint64_t guid, unsigned p, const ErrReading& r) {
  if (port(guid, p) == nullptr) return false;  // checked before a copy is made
  DbNode* n = find(guid);
  DbPort& port = n->ports[p];
  port.valid = true;
  // Unsigned increase: the caller has already restarted the previous reading at zero
  // when the counter went backwards (check_oob), so this never wraps.
  for (std::size_t i = 0; i < kErrCount; ++i)
    port.err_total.v[i] += r.v[i] - port.err_previous.v[i];
  port.err_previous = r;
  port.err_total.time = r.time;
  return true;
}

bool CounterDb::add_data(std::uint64_t guid, unsigned p, const DataReading& r, bool ietf) {
  if (port(guid, p) == nullptr) return false;
  DbNode* n = find(guid);
  DbPort& port = n->ports[p];
  port.valid = true;
  const std::size_t count = ietf ? kDataCount : 4;
  for (std::size_t i = 0; i < count; ++i)
    port.dc_total.v[i] += r.v[i] - port.dc_previous.v[i];
  port.dc_previous = r;
  port.dc_total.time = r.time;
  return true;
}

void CounterDb::clear_prev_err(std::uint64_t guid, unsigned p, std::time_t now) {
  if (port(guid, p) == nullptr) return;
  DbNode* n = find(guid);
  n->ports[p].err_previous = ErrReading{};
  n->ports[p].err_previous.time = now;
}

void CounterDb::clear_prev_data(std::uint64_t guid, unsigned p, std::time_t now) {
  if (port(guid, p) == nullptr) return;
  DbNode* n = find(guid);
  n->ports[p].dc_previous = DataReading{};
  n->ports[p].dc_previous.time = now;
}

void CounterDb::clear_totals(std::time_t now) {
  for (auto& [guid, shared] : nodes_) {
    for (DbPort& p : writable(shared).ports) {
      p.err_total = ErrReading{};
      p.err_total.time = now;
      p.dc_total = DataReading{};
      p.dc_total.time = now;
      p.last_reset = now;
    }
  }
}

namespace {

void dump_node_mach(const DbNode& n, std::string& out) {
  out += "\nName\tGUID\tActive\tPort\tLast Reset\tLast Error Update\tLast Data Update";
  for (const auto& c : kErrNames)
    out += fmt::format("\t{}", c.opensm);
  for (const auto& c : kDataNames)
    out += fmt::format("\t{}", c.opensm);
  out += '\n';
  for (std::size_t i = n.esp0 ? 0 : 1; i < n.ports.size(); ++i) {
    const DbPort& p = n.ports[i];
    if (!p.valid) continue;
    out += fmt::format("{}\t0x{:x}\t{}\t{}\t{}\t{}\t{}", n.name, n.guid,
                       n.active ? "TRUE" : "FALSE", i, ctime_text(p.last_reset),
                       ctime_text(p.err_total.time), ctime_text(p.dc_total.time));
    for (std::uint64_t v : p.err_total.v)
      out += fmt::format("\t{}", v);
    for (std::uint64_t v : p.dc_total.v)
      out += fmt::format("\t{}", v);
    out += '\n';
  }
}

// OpenSM's dump_hr_dc: the value scaled to K/M/G..., data counters in bytes (x4).
std::string human_scale(std::uint64_t v, bool data) {
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P", "E"};
  unsigned ui = 0;
  std::uint64_t div = 1;
  for (std::uint64_t t = v / 1024; t != 0; t /= 1024) {
    ++ui;
    div *= 1024;
  }
  float val = static_cast<float>(v);
  if (data) {
    val *= 4;
    if (val / static_cast<float>(div) > 1024) {
      ++ui;
      div *= 1024;
    }
  }
  val /= static_cast<float>(div);
  return fmt::format(" ({:5.3f}{}{})\n", val, ui < 7 ? kUnits[ui] : "", data ? "B" : "");
}

bool all_zero(const ErrReading& e) {
  for (std::uint64_t v : e.v)
    if (v != 0) return false;
  return true;
}

void dump_node_human(const DbNode& n, std::string& out, const std::string* only_port,
                     bool err_only) {
  std::size_t first = n.esp0 ? 0 : 1;
  std::size_t last = n.ports.size();
  if (only_port != nullptr) {
    char* end = nullptr;
    const unsigned long p = std::strtoul(only_port->c_str(), &end, 0);
    if (!only_port->empty() && *end == '\0' && p >= first && p < last) {
      first = p;
      last = p + 1;
    } else {
      out += fmt::format("Warning: \"{}\" is not a valid port\n", *only_port);
    }
  }
  static constexpr const char* kHrErr[] = {
      "symbol_err_cnt      ", "link_err_recover    ", "link_downed         ",
      "rcv_err             ", "rcv_rem_phys_err    ", "rcv_switch_relay_err",
      "xmit_discards       ", "xmit_constraint_err ", "rcv_constraint_err  ",
      "link_integrity_err  ", "buf_overrun_err     ", "vl15_dropped        ",
      "xmit_wait           "};
  for (std::size_t i = first; i < last; ++i) {
    const DbPort& p = n.ports[i];
    if (!p.valid) continue;
    if (err_only && all_zero(p.err_total)) continue;
    out += fmt::format(
        "\"{}\" 0x{:x} active {} port {}\n     Last Reset           : {}\n"
        "     Last Error Update    : {}\n",
        n.name, n.guid, n.active ? "TRUE" : "FALSE", i, ctime_text(p.last_reset),
        ctime_text(p.err_total.time));
    for (std::size_t e = 0; e < kErrCount; ++e)
      if (!err_only || p.err_total.v[e] != 0)
        out += fmt::format("     {} : {}\n", kHrErr[e], p.err_total.v[e]);
    if (err_only) continue;
    out += fmt::format("     Last Data Update     : {}\n", ctime_text(p.dc_total.time));
    for (std::size_t d = 0; d < kDataCount; ++d) {
      std::string label(kDataNames[d].opensm);
      label.resize(20, ' ');
      out += fmt::format("     {} : {}", label, p.dc_total.v[d]);
      out += human_scale(p.dc_total.v[d], d < 2);
    }
  }
}

}  // namespace

std::string CounterDb::dump_mach() const {
  std::string out;
  for (const auto& [guid, n] : nodes_)
    dump_node_mach(*n, out);
  return out;
}

std::string CounterDb::dump_human(bool err_only) const {
  std::string out;
  for (const auto& [guid, n] : nodes_)
    dump_node_human(*n, out, nullptr, err_only);
  return out;
}

CounterDb CounterDb::subset(const std::string& name_or_guid) const {
  CounterDb out;
  auto hit = nodes_.end();
  for (auto it = nodes_.begin(); it != nodes_.end(); ++it)  // by name first, as print_node
    if (it->second->name == name_or_guid) {
      hit = it;
      break;
    }
  if (hit == nodes_.end()) {
    char* end = nullptr;
    const std::uint64_t g = std::strtoull(name_or_guid.c_str(), &end, 0);
    if (!name_or_guid.empty() && *end == '\0') hit = nodes_.find(g);
  }
  if (hit != nodes_.end()) out.nodes_.emplace(hit->first, hit->second);  // shared, not copied
  return out;
}

Status write_counter_dump(const CounterDb& db, bool mach, const std::string& path) {
  const std::string text = mach ? db.dump_mach() : db.dump_human(false);
  if (auto st = write_file_atomically(path, text, false); !st.ok())
    return ibsm::fail(kErrPmDump, "cannot write " + path + ": " + st.error().message);
  return {};
}

std::string CounterDb::print_node(const std::string& name_or_guid, const std::string& port,
                                  bool err_only) const {
  std::string out;
  const std::string* only = port.empty() ? nullptr : &port;
  for (const auto& [guid, n] : nodes_) {
    if (n->name == name_or_guid) {
      dump_node_human(*n, out, only, err_only);
      return out;
    }
  }
  char* end = nullptr;
  const std::uint64_t g = std::strtoull(name_or_guid.c_str(), &end, 0);
  if (!name_or_guid.empty() && *end == '\0') {
    if (const DbNode* n = find(g)) {
      dump_node_human(*n, out, only, err_only);
      return out;
    }
    return fmt::format("Node 0x{:x} not found...\n", g);
  }
  return fmt::format("Node {} not found...\n", name_or_guid);
}

}  // namespace ibsm::perfmgr
