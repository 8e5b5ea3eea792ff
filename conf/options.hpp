// The effective configuration of one ibsm run.
//
// One field per opensm.conf key of OpenSM 3.3.23, named like the key and
// initialised to OpenSM's default; the fields are generated from the option
// table in conf/option_list.hpp (look there for types, defaults and meaning).
// Strings that OpenSM writes as "(null)" are empty here: an empty string
// means "unset". Integers have OpenSM's widths; 64-bit keys (guid, m_key,
// sm_key, sa_key, subnet_prefix, cc_key) are host-order values.
//
// After the table come the settings that exist only on the command line or in
// the environment.
#pragma once

#include <cstdint>
#include <string>

#include "conf/option_list.hpp"

namespace ibsm::conf {

struct Options {
#define IBSM_CONF_FIELD(section, key, type, def, spec, reload, impl, cli, help) type key = def;
  IBSM_CONF_OPTIONS(IBSM_CONF_FIELD)
#undef IBSM_CONF_FIELD

  // ---- command line / environment only ----
  bool once = false;        // -o/--once: one heavy sweep until SUBNET UP, then exit
  std::string pidfile;      // -J/--pidfile: write the PID here (daemon mode)
  std::string config_file;  // -F/--config: the file that was read ("" = none)
  std::string cache_dir = "/var/cache/opensm";  // env OSM_CACHE_DIR (guid2lid, ...)
  std::string tmp_dir = "/var/log";             // env OSM_TMP_DIR (OpenSM's fallback dump dir)
  bool strict = false;                          // --strict: unknown opensm.conf keys are errors

  bool operator==(const Options&) const = default;
};

// "minhop" when routing_engine is unset, else the routing_engine value.
std::string effective_routing_engine(const Options& o);

}  // namespace ibsm::conf
