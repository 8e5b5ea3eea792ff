#include "common/log_modules.hpp"

#include <spdlog/sinks/sink.h>

#include <array>
#include <mutex>

#include "common/log_modules_detail.hpp"

namespace ibsm {
namespace {

using Names = std::span<const std::string_view>;

// OpenSM 3.3.23's module names (osm_subnet.c module_name_str), by the ibsm subsystem
// that does their work.
constexpr std::string_view kMainFiles[] = {"main.c",
                                           "osm_opensm.c",
                                           "osm_subnet.c",
                                           "osm_console.c",
                                           "osm_console_io.c",
                                           "osm_log.c",
                                           "osm_helper.c",
                                           "osm_db_files.c",
                                           "osm_db_pack.c",
                                           "osm_event_plugin.c",
                                           "osm_dump.c",
                                           "osm_sm.c",
                                           "st.c"};
constexpr std::string_view kMadFiles[] = {"osm_vendor_ibumad.c", "osm_vl15intf.c", "osm_mad_pool.c",
                                          "osm_sm_mad_ctrl.c",   "osm_req.c",      "osm_resp.c"};
constexpr std::string_view kDiscoveryFiles[] = {
    "osm_state_mgr.c",     "osm_node_info_rcv.c", "osm_node_desc_rcv.c",
    "osm_port_info_rcv.c", "osm_sw_info_rcv.c",   "osm_node.c",
    "osm_port.c",          "osm_switch.c",        "osm_drop_mgr.c"};
constexpr std::string_view kElectionFiles[] = {"osm_sm_state_mgr.c", "osm_sminfo_rcv.c",
                                               "osm_remote_sm.c"};
constexpr std::string_view kLidFiles[] = {"osm_lid_mgr.c"};
constexpr std::string_view kLinkFiles[] = {"osm_link_mgr.c", "osm_mlnx_ext_port_info_rcv.c"};
constexpr std::string_view kRoutingFiles[] = {
    "osm_ucast_mgr.c",   "osm_ucast_cache.c", "osm_ucast_dnup.c", "osm_ucast_file.c",
    "osm_ucast_ftree.c", "osm_ucast_lash.c",  "osm_ucast_updn.c", "osm_ucast_dfsssp.c",
    "osm_ucast_nue.c",   "osm_lin_fwd_rcv.c", "osm_mesh.c",       "osm_torus.c",
    "osm_router.c"};
constexpr std::string_view kMulticastFiles[] = {
    "osm_mcast_mgr.c", "osm_mcast_fwd_rcv.c", "osm_mcast_tbl.c",         "osm_mcm_port.c",
    "osm_mtree.c",     "osm_multicast.c",     "osm_sa_mcmember_record.c"};
constexpr std::string_view kPartitionFiles[] = {"osm_pkey.c", "osm_pkey_mgr.c", "osm_pkey_rcv.c",
                                                "osm_prtn.c", "osm_prtn_config.c"};
constexpr std::string_view kQosFiles[] = {"osm_qos.c",          "osm_qos_parser_l.c",
                                          "osm_qos_parser_y.c", "osm_qos_policy.c",
                                          "osm_slvl_map_rcv.c", "osm_vl_arb_rcv.c"};
constexpr std::string_view kSaFiles[] = {"osm_sa.c",
                                         "osm_sa_class_port_info.c",
                                         "osm_sa_guidinfo_record.c",
                                         "osm_sa_informinfo.c",
                                         "osm_sa_lft_record.c",
                                         "osm_sa_link_record.c",
                                         "osm_sa_mad_ctrl.c",
                                         "osm_sa_mft_record.c",
                                         "osm_sa_multipath_record.c",
                                         "osm_sa_node_record.c",
                                         "osm_sa_path_record.c",
                                         "osm_sa_pkey_record.c",
                                         "osm_sa_portinfo_record.c",
                                         "osm_sa_service_record.c",
                                         "osm_sa_slvl_record.c",
                                         "osm_sa_sminfo_record.c",
                                         "osm_sa_sw_info_record.c",
                                         "osm_sa_vlarb_record.c",
                                         "osm_inform.c",
                                         "osm_service.c",
                                         "osm_guid_info_rcv.c",
                                         "osm_guid_mgr.c"};
constexpr std::string_view kTrapFiles[] = {"osm_trap_rcv.c"};
constexpr std::string_view kPerfmgrFiles[] = {"osm_perfmgr.c", "osm_perfmgr_db.c"};
constexpr std::string_view kCongestionFiles[] = {"osm_congestion_control.c"};

constexpr LogModuleInfo kModules[] = {
    {LogModule::kMain, "main", "start-up, configuration, signals, dumps, the sweep loop",
     Names(kMainFiles)},
    {LogModule::kMad, "mad", "MAD transport and the SMP client: sends, retries, timeouts",
     Names(kMadFiles)},
    {LogModule::kDiscovery, "discovery",
     "heavy and light sweeps: NodeInfo, PortInfo, SwitchInfo, NodeDescription",
     Names(kDiscoveryFiles)},
    {LogModule::kElection, "election", "SM state, SMInfo, master election and handover",
     Names(kElectionFiles)},
    {LogModule::kLid, "lid", "LID assignment and the guid2lid file", Names(kLidFiles)},
    {LogModule::kLink, "link", "PortInfo programming: MTU, VLs, speeds, widths, FDR10, port states",
     Names(kLinkFiles)},
    {LogModule::kRouting, "routing", "unicast routing engines, LFTs, the route report",
     Names(kRoutingFiles)},
    {LogModule::kMulticast, "multicast", "multicast groups and MFTs", Names(kMulticastFiles)},
    {LogModule::kPartitions, "partitions", "partitions.conf and P_Key tables",
     Names(kPartitionFiles)},
    {LogModule::kQos, "qos", "QoS: SL2VL and VLArbitration tables", Names(kQosFiles)},
    {LogModule::kSa, "sa", "Subnet Administrator: queries, subscriptions, services, alias GUIDs",
     Names(kSaFiles)},
    {LogModule::kTraps, "traps", "traps received, trap suppression, babbling ports",
     Names(kTrapFiles)},
    {LogModule::kMkey, "mkey", "M_Key management", {}},
    {LogModule::kPerfmgr, "perfmgr", "performance manager", Names(kPerfmgrFiles)},
    {LogModule::kCongestion, "congestion", "congestion control", Names(kCongestionFiles)},
};
static_assert(std::size(kModules) == kLogModuleCount);

std::size_t index_of(LogModule m) {
  return static_cast<std::size_t>(m);
}

}  // namespace

std::span<const LogModuleInfo> log_modules() {
  return kModules;
}

const LogModuleInfo& log_module_info(LogModule m) {
  return kModules[index_of(m)];
}

std::optional<LogModule> find_log_module(std::string_view name) {
  for (const auto& m : kModules) {
    if (m.name == name) return m.id;
    for (auto f : m.opensm_modules)
      if (f == name) return m.id;
  }
  return std::nullopt;
}

namespace detail {

// Passes lines on to the shared file sink when this module's level lets them through.
// Not in the anonymous namespace: ModuleLoggers::Slot, a class with linkage, holds one
// (-Wsubobject-linkage, which a unity build reports).
class GateSink final : public spdlog::sinks::sink {
 public:
  explicit GateSink(spdlog::sink_ptr target) : target_(std::move(target)) {}
  void log(const spdlog::details::log_msg& msg) override { target_->log(msg); }
  void flush() override { target_->flush(); }
  void set_pattern(const std::string&) override {}
  void set_formatter(std::unique_ptr<spdlog::formatter>) override {}

 private:
  spdlog::sink_ptr target_;
};

struct ModuleLoggers::Slot {
  unsigned flags = 0;
  std::weak_ptr<spdlog::logger> logger;
  std::weak_ptr<GateSink> gate;
};

ModuleLoggers::ModuleLoggers(std::string root_name) : root_name_(std::move(root_name)) {
  slots_.resize(kLogModuleCount);
}
ModuleLoggers::~ModuleLoggers() = default;

void ModuleLoggers::attach(spdlog::sink_ptr important) {
  std::lock_guard lock(mutex_);
  important_ = std::move(important);
}

void ModuleLoggers::attach_root(const Logger& root) {
  std::lock_guard lock(mutex_);
  root_ = root;
  apply(index_of(LogModule::kMain));
}

void ModuleLoggers::set_global(unsigned flags, bool flush_each) {
  std::lock_guard lock(mutex_);
  global_ = flags;
  flush_each_ = flush_each;
  for (std::size_t i = 0; i < slots_.size(); ++i)
    apply(i);
}

void ModuleLoggers::apply(std::size_t i) {
  if (i == index_of(LogModule::kMain)) {
    // The root logger: its file sink is sinks()[0] (make_logger), its flush policy is
    // update_log_settings' business.
    auto root = root_.lock();
    if (!root) return;
    const auto level = level_for_flags(global_ | slots_[i].flags);
    root->sinks()[0]->set_level(level);
    root->set_level(important_ ? std::min(level, spdlog::level::info) : level);
    return;
  }
  auto logger = slots_[i].logger.lock();
  auto gate = slots_[i].gate.lock();
  if (!logger || !gate) return;
  const auto level = level_for_flags(global_ | slots_[i].flags);
  gate->set_level(level);
  // System events (info) must reach syslog even when the file shows errors only.
  logger->set_level(important_ ? std::min(level, spdlog::level::info) : level);
  logger->flush_on(flush_each_ ? spdlog::level::trace : spdlog::level::warn);
}

Logger ModuleLoggers::get(LogModule m, const spdlog::sink_ptr& file) {
  std::lock_guard lock(mutex_);
  if (m == LogModule::kMain) {
    if (auto root = root_.lock()) return root;
  }
  Slot& slot = slots_[index_of(m)];
  if (auto existing = slot.logger.lock()) return existing;
  auto gate = std::make_shared<GateSink>(file);
  std::vector<spdlog::sink_ptr> sinks{gate};
  if (important_) sinks.push_back(important_);
  auto logger = std::make_shared<spdlog::logger>(
      root_name_ + "." + std::string(log_module_info(m).name), sinks.begin(), sinks.end());
  slot.logger = logger;
  slot.gate = gate;
  apply(index_of(m));
  return logger;
}

unsigned ModuleLoggers::flags(LogModule m) const {
  std::lock_guard lock(mutex_);
  return slots_[index_of(m)].flags;
}

void ModuleLoggers::set_flags(LogModule m, unsigned flags) {
  std::lock_guard lock(mutex_);
  slots_[index_of(m)].flags = flags & 0xff;
  apply(index_of(m));
}

}  // namespace detail

Logger module_logger(const Logger& root, LogModule m) {
  auto [modules, file] = detail::module_loggers_of(root);
  if (modules == nullptr) return root;
  return modules->get(m, file);
}

unsigned module_log_flags(const Logger& root, LogModule m) {
  auto [modules, file] = detail::module_loggers_of(root);
  return modules == nullptr ? 0 : modules->flags(m);
}

bool set_module_log_flags(const Logger& root, LogModule m, unsigned flags) {
  auto [modules, file] = detail::module_loggers_of(root);
  if (modules == nullptr) return false;
  modules->set_flags(m, flags);
  return true;
}

void reset_module_log_flags(const Logger& root) {
  for (const auto& info : kModules)
    set_module_log_flags(root, info.id, 0);
}

}  // namespace ibsm
