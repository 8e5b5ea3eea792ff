// The effective configuration of one ibsm run.
//
// One field per opensm.conf key of OpenSM 3.3.23, named like the key and
// initialised to OpenSM's default; the fields are generated from the option
// table in conf/option_list.hpp (look there for types, defaults and meaning).
// The table's ibsm extension keys (e.g. master_sm_priority) are fields too,
// with ibsm's defaults.
// Strings that OpenSM writes as "(null)" are empty here: an empty string
// means "unset". Integers have OpenSM's widths; 64-bit keys (guid, m_key,
// sm_key, sa_key, subnet_prefix, cc_key) are host-order values.
//
// After the table come the settings that exist only on the command line or in
// the environment.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <string_view>

#include "conf/option_list.hpp"

namespace ibsm::conf {

// The table keys a config file or a flag gave, whatever their value (ibsm's
// adaptive SMP window applies only while max_wire_smps is not given). Where a
// value came from is not part of the configuration: it takes no part in
// comparisons, two Options with the same values are equal.
class GivenKeys {
 public:
  void add(std::string_view key) { keys_.emplace(key); }
  void set(std::string_view key, bool given) {
    if (given)
      add(key);
    else if (auto it = keys_.find(key); it != keys_.end())
      keys_.erase(it);
  }
  bool contains(std::string_view key) const { return keys_.find(key) != keys_.end(); }
  bool operator==(const GivenKeys&) const { return true; }

 private:
  std::set<std::string, std::less<>> keys_;
};

struct Options {
#define IBSM_CONF_FIELD(section, key, type, def, spec, reload, impl, cli, help) type key = def;
  IBSM_CONF_OPTIONS(IBSM_CONF_FIELD)
#undef IBSM_CONF_FIELD

  // ---- command line / environment only ----
  bool once = false;        // -o/--once: one heavy sweep until SUBNET UP, then exit
  std::string pidfile;      // -J/--pidfile: write the PID here, removed on exit
  std::string config_file;  // -F/--config: the file that was read ("" = none)
  std::string cache_dir = "/var/cache/opensm";  // env OSM_CACHE_DIR (guid2lid, ...)
  std::string tmp_dir = "/var/log";             // env OSM_TMP_DIR (OpenSM's fallback dump dir)
  bool strict = false;                          // --strict: unknown opensm.conf keys are errors
  GivenKeys given;                              // table keys set by a file or a flag

  bool operator==(const Options&) const = default;
};

// "minhop" when routing_engine is unset, else the routing_engine value.
std::string effective_routing_engine(const Options& o);

// What OpenSM's osm_subn_verify_config makes of a deprecated key once every file and
// flag is read: no_partition_enforcement TRUE (-N) turns part_enforce to "off", so
// `-c` writes both and the rest of the SM reads part_enforce alone.
void apply_deprecated_keys(Options& o);

}  // namespace ibsm::conf
