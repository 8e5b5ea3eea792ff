#include "sm/pkeys/pkey_manager.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "common/atomic_file.hpp"
#include "mad/attr/pkey_table.hpp"
#include "partitions/defaults.hpp"
#include "partitions/fabric_snapshot.hpp"
#include "partitions/gid.hpp"
#include "sm/errors.hpp"

namespace ibsm::sm {

using mad::SmpOutcome;
using mad::SmpRequest;

namespace {

constexpr const char* kStateFile = "pkey-indexes";
constexpr const char* kMlidFile = "mlid-assignment";
constexpr const char* kAutoPKeyFile = "partitions-auto-pkeys";
constexpr const char* kSnapshotFile = "fabric.snapshot";

partitions::PartEnforce part_enforce(const conf::Options& o) {
  if (o.no_partition_enforcement) return partitions::PartEnforce::kOff;
  if (o.part_enforce == "in") return partitions::PartEnforce::kIn;
  if (o.part_enforce == "out") return partitions::PartEnforce::kOut;
  if (o.part_enforce == "off") return partitions::PartEnforce::kOff;
  return partitions::PartEnforce::kBoth;
}

std::size_t blocks_for(std::size_t capacity) {
  return (capacity + mad::PKeyBlock::kEntries - 1) / mad::PKeyBlock::kEntries;
}

// "node_guid port pkey index" per line.
std::string format_state(const partitions::PlannerState& s) {
  std::string out;
  char line[96];
  for (const auto& [key, history] : s.history) {
    for (const auto& [pkey, index] : history) {
      std::snprintf(line, sizeof line, "0x%016" PRIx64 " %u 0x%04x %u\n", key.first,
                    static_cast<unsigned>(key.second), static_cast<unsigned>(pkey),
                    static_cast<unsigned>(index));
      out += line;
    }
  }
  return out;
}

partitions::PlannerState parse_state(const std::string& text) {
  partitions::PlannerState s;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::uint64_t guid = 0;
    unsigned port = 0, pkey = 0, index = 0;
    if (std::sscanf(line.c_str(), "%" SCNx64 " %u %x %u", &guid, &port, &pkey, &index) != 4)
      continue;
    if (port > 255 || pkey > 0xffff || index > 0xffff) continue;
    s.history[{guid, static_cast<std::uint8_t>(port)}][static_cast<std::uint16_t>(pkey)] =
        static_cast<std::uint16_t>(index);
  }
  return s;
}

// "0xPKEY name" per line (the name runs to the end of the line).
std::string format_auto(const std::map<std::string, std::uint16_t>& a) {
  std::string out;
  char buf[16];
  for (const auto& [name, pkey] : a) {
    std::snprintf(buf, sizeof buf, "0x%04x ", static_cast<unsigned>(pkey));
    out += buf + name + "\n";
  }
  return out;
}

std::map<std::string, std::uint16_t> parse_auto(const std::string& text) {
  std::map<std::string, std::uint16_t> a;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto sp = line.find(' ');
    if (sp == std::string::npos) continue;
    unsigned pkey = 0;
    if (std::sscanf(line.c_str(), "%x", &pkey) != 1 || pkey == 0 || pkey > 0x7fff) continue;
    a[line.substr(sp + 1)] = static_cast<std::uint16_t>(pkey);
  }
  return a;
}

}  // namespace

std::optional<partitions::Config> read_partitions_config(const std::string& path,
                                                         std::vector<std::string>& errors,
                                                         std::vector<std::string>* warnings) {
  auto outcome = partitions::load_partitions_file(path);
  for (const auto& d : outcome.diagnostics) {
    if (d.severity == partitions::Severity::kError) {
      errors.push_back(partitions::format_diagnostic(d, path));
    } else if (warnings != nullptr) {
      warnings->push_back(partitions::format_diagnostic(d, path));
    }
  }
  if (outcome.config && errors.empty()) return std::move(outcome.config);
  if (errors.empty()) errors.push_back(path + ": unusable partition configuration");
  return std::nullopt;
}

PartitionManager::PartitionManager(Logger log, const conf::Options& options)
    : log_(std::move(log)), options_(options) {
  load_cache();
  if (!reload() && !config_) {
    log_->error(
        "partition configuration in error; using the default (everyone full member "
        "of 0x7fff) until it is fixed");
    set_config(partitions::missing_file_config());
  }
}

std::string PartitionManager::cache_path(const char* name) const {
  return options_.cache_dir + "/" + name;
}

void PartitionManager::load_cache() {
  if (auto t = read_file(cache_path(kStateFile)); t.ok()) {
    state_ = parse_state(*t);
    saved_state_text_ = *t;
  }
  if (auto t = read_file(cache_path(kMlidFile)); t.ok()) {
    saved_mlids_ = partitions::parse_mlid_assignment(*t);
    saved_mlid_text_ = *t;
  }
  if (auto t = read_file(cache_path(kAutoPKeyFile)); t.ok()) {
    auto_pkeys_ = parse_auto(*t);
    saved_auto_text_ = *t;
  }
}

bool PartitionManager::reload() {
  std::vector<std::string> errors, warnings;
  auto config = read_partitions_config(options_.partition_config_file, errors, &warnings);
  last_errors_ = errors;
  for (const auto& w : warnings)
    log_->warn("{}", w);
  if (!config) {
    for (const auto& e : errors)
      log_->error("{}", e);
    if (config_) {
      log_->error("partition configuration {} in error; keeping the last good one",
                  options_.partition_config_file);
    }
    return false;
  }
  set_config(std::move(*config));
  log_->info("partition configuration: {} partitions, {} multicast groups from {}",
             resolved_.partitions.size(), resolved_.groups.size(), options_.partition_config_file);
  return true;
}

void PartitionManager::set_config(partitions::Config config) {
  partitions::ResolveOptions ro;
  ro.qos = options_.qos;
  ro.previous_auto_pkeys = auto_pkeys_;
  resolved_ = partitions::resolve(config, ro);
  for (const auto& d : resolved_.diagnostics)
    log_->warn("{}", partitions::format_diagnostic(d, options_.partition_config_file));
  for (const auto& [name, pkey] : resolved_.auto_pkeys())
    auto_pkeys_[name] = pkey;
  config_ = std::move(config);
}

partitions::Fabric PartitionManager::planner_fabric(
    const Fabric& f, std::vector<std::pair<NodeIndex, PortNum>>* where) {
  partitions::Fabric out;
  for (NodeIndex i = 0; i < f.size(); ++i) {
    const Node& n = f.node(i);
    const auto type = n.is_switch()                        ? partitions::NodeType::kSwitch
                      : n.type() == mad::NodeType::kRouter ? partitions::NodeType::kRouter
                                                           : partitions::NodeType::kCa;
    for (const Port& p : n.ports) {
      if (!p.present) continue;
      const bool end_port = n.is_switch() ? p.num == 0 : p.num != 0;
      if (!end_port && (!n.is_switch() || !p.link_up() || p.peer == kNoNode)) continue;
      if (end_port && p.num != 0 && !p.link_up()) continue;
      partitions::FabricPort fp;
      fp.port_guid = n.is_switch() ? n.guid() : p.guid;
      fp.node_guid = n.guid();
      fp.node_type = type;
      fp.port_num = p.num;
      fp.is_sm_port = i == f.sm_node && p.num == f.sm_port;
      fp.pkeys = p.pkeys;
      if (end_port) {
        fp.pkey_capacity = n.info.partition_cap;
      } else {
        fp.pkey_capacity = n.switch_info ? n.switch_info->partition_enforcement_cap : 0;
        const Node& peer = f.node(p.peer);
        if (peer.is_switch()) {
          fp.peer = partitions::FabricPort::Peer::kSwitch;
        } else {
          fp.peer = partitions::FabricPort::Peer::kEndPort;
          fp.peer_port_guid = peer.ports[p.peer_port].guid;
        }
        fp.enforcement.inbound = p.info.partition_enforcement_inbound;
        fp.enforcement.outbound = p.info.partition_enforcement_outbound;
      }
      out.ports.push_back(std::move(fp));
      if (where != nullptr) where->emplace_back(i, p.num);
    }
  }
  return out;
}

void PartitionManager::read_tables(Fabric& f, mad::SmpClient& client, SweepReport& report) {
  std::vector<std::pair<NodeIndex, PortNum>> where;
  const auto pf = planner_fabric(f, &where);
  for (std::size_t k = 0; k < pf.ports.size(); ++k) {
    const auto& fp = pf.ports[k];
    if (!fp.is_end_port() && fp.peer != partitions::FabricPort::Peer::kEndPort) continue;
    const auto [idx, num] = where[k];
    const Node& node = f.node(idx);
    mad::DrPath path = node.path;
    const Port& port = node.ports[num];
    if (!node.is_switch() && port.peer != kNoNode) {
      if (auto ext = f.node(port.peer).path.extended(port.peer_port)) path = *ext;
    }
    const std::size_t blocks = blocks_for(fp.pkey_capacity);
    f.node(idx).ports[num].pkeys.assign(blocks * mad::PKeyBlock::kEntries, 0);
    for (std::size_t b = 0; b < blocks; ++b) {
      const auto block = static_cast<std::uint16_t>(b);
      const std::uint32_t mod = node.is_switch() ? mad::pkey_attr_mod(block, num) : block;
      client.submit(SmpRequest::get<mad::PKeyBlock>(path, mod),
                    [this, &f, &report, idx = idx, num = num, block,
                     guid = node.guid()](const SmpOutcome& o) {
                      if (!o.ok())
                        return report_failure(log_, &report, kErrNodeUnreachable, o, "P_KeyTable");
                      const auto pb = mad::PKeyBlock::decode_payload(o.response->data());
                      Node* n = f.node_if(idx, guid);
                      if (n == nullptr || num >= n->ports.size()) return;  // rebuilt since
                      auto& t = n->ports[num].pkeys;
                      for (std::size_t e = 0; e < mad::PKeyBlock::kEntries; ++e) {
                        const std::size_t at = block * mad::PKeyBlock::kEntries + e;
                        if (at < t.size()) t[at] = pb.pkeys[e];
                      }
                    });
    }
  }
}

void PartitionManager::program(Fabric& f, mad::SmpClient& client, SweepReport& report,
                               const PureRunner& run_pure) {
  std::vector<std::pair<NodeIndex, PortNum>> where;
  const auto pf = planner_fabric(f, &where);
  partitions::PlannerOptions po;
  po.allow_both_pkeys = options_.allow_both_pkeys;
  po.part_enforce = part_enforce(options_);
  po.sm_port_always_full = true;
  po.keep_pkey_indexes = options_.keep_pkey_indexes;
  // The planner's worker gets only what it owns: the fabric copy above, a copy of the
  // configuration and the planner state moved out of this manager (the plan hands back
  // the next one), so nothing it reads is live state.
  partitions::FabricPlan plan;
  run_pure([&plan, &pf, &po, config = resolved_, state = std::move(state_)] {
    plan = partitions::plan_pkeys(config, pf, po, state);
  });
  plan_ = std::move(plan);
  for (const auto& d : plan_.diagnostics)
    log_->warn("{}", partitions::format_diagnostic(d, options_.partition_config_file));
  state_ = plan_.next_state;
  std::size_t sets = 0;
  for (const auto& pp : plan_.ports) {
    const NodeIndex idx = f.find(pp.node_guid);
    if (idx == kNoNode) continue;
    Node& node = f.node(idx);
    if (pp.port_num >= node.ports.size()) continue;
    Port& port = node.ports[pp.port_num];
    if (pp.set_enforcement) {
      // Only what the switch says it can do (SwitchInfo Inbound/OutboundEnforcementCap):
      // asking a switch for bits it cannot hold would be repeated on every sweep.
      partitions::Enforcement e = *pp.set_enforcement;
      if (node.switch_info) {
        e.inbound = e.inbound && node.switch_info->inbound_enforcement_cap;
        e.outbound = e.outbound && node.switch_info->outbound_enforcement_cap;
      }
      port.want_enforcement = e;
    }
    if (!pp.dropped.empty()) {
      log_->warn("port {} of {}: {} P_Keys do not fit in its table", pp.port_num,
                 mad::format_guid(pp.node_guid), pp.dropped.size());
    }
    mad::DrPath path = node.path;
    if (!node.is_switch() && port.peer != kNoNode) {
      if (auto ext = f.node(port.peer).path.extended(port.peer_port)) path = *ext;
    }
    const PortNum num = pp.port_num;
    for (const std::uint16_t block : pp.blocks_to_send) {
      mad::PKeyBlock pb;
      for (std::size_t e = 0; e < mad::PKeyBlock::kEntries; ++e) {
        const std::size_t at = block * mad::PKeyBlock::kEntries + e;
        pb.pkeys[e] = at < pp.table.size() ? pp.table[at] : 0;
      }
      const std::uint32_t mod = node.is_switch() ? mad::pkey_attr_mod(block, num) : block;
      ++sets;
      client.submit(SmpRequest::set(path, pb, mod), [this, &f, &report, idx = idx, num = num, block,
                                                     guid = node.guid()](const SmpOutcome& o) {
        if (!o.ok()) {
          report.set_failed(guid, num);
          return report_failure(log_, &report, kErrProgrammingFailed, o, "P_KeyTable");
        }
        const auto got = mad::PKeyBlock::decode_payload(o.response->data());
        Node* n = f.node_if(idx, guid);
        if (n == nullptr || num >= n->ports.size()) return;  // rebuilt since
        auto& t = n->ports[num].pkeys;
        const std::size_t end = (block + 1u) * mad::PKeyBlock::kEntries;
        if (t.size() < end) t.resize(end, 0);
        for (std::size_t e = 0; e < mad::PKeyBlock::kEntries; ++e)
          t[block * mad::PKeyBlock::kEntries + e] = got.pkeys[e];
      });
    }
  }
  if (sets > 0) log_->info("P_Key tables: {} blocks to set", sets);
  auto diags = groups_.apply_configuration(resolved_.groups, &plan_.membership.partition_present,
                                           saved_mlids_);
  for (const auto& d : diags)
    log_->warn("{}", partitions::format_diagnostic(d, options_.partition_config_file));
}

void PartitionManager::save(const Fabric& f) {
  ::mkdir(options_.cache_dir.c_str(), 0755);
  auto write_if_changed = [this](const char* name, const std::string& text, std::string& saved) {
    if (text == saved) return;
    if (auto st = write_file_atomically(cache_path(name), text); !st.ok()) {
      log_->warn("cannot write {}: {}", cache_path(name), st.error().message);
      return;
    }
    saved = text;
  };
  write_if_changed(kStateFile, format_state(state_), saved_state_text_);
  saved_mlids_ = groups_.assignment();
  write_if_changed(kMlidFile, partitions::format_mlid_assignment(saved_mlids_), saved_mlid_text_);
  write_if_changed(kAutoPKeyFile, format_auto(auto_pkeys_), saved_auto_text_);

  partitions::FabricSnapshot snap;
  std::vector<std::pair<NodeIndex, PortNum>> where;
  snap.fabric = planner_fabric(f, &where);
  for (const auto& [idx, num] : where)
    snap.descriptions.push_back(f.node(idx).description);
  if (auto st =
          write_file_atomically(cache_path(kSnapshotFile), partitions::write_fabric_snapshot(snap));
      !st.ok()) {
    log_->warn("cannot write {}: {}", cache_path(kSnapshotFile), st.error().message);
  }
}

void PartitionManager::log_groups() const {
  for (const auto& g : groups_.by_mlid()) {
    log_->debug(
        "multicast group {} MLID 0x{:04x} P_Key 0x{:04x} Q_Key 0x{:08x} mtu {} rate {} "
        "sl {} scope {}",
        partitions::format_gid(g.params.mgid), g.mlid, g.params.pkey, g.params.qkey, g.params.mtu,
        g.params.rate, g.params.sl, g.params.scope);
  }
}

}  // namespace ibsm::sm
