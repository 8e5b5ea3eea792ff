#include "conf/console_keys.hpp"

#include <utility>

#include "conf/errors.hpp"

namespace ibsm::conf {

Status check_refused_values(const Options& o) {
  if (o.console == "socket")
    return fail(kConsoleSocketRefused,
                "console socket is refused: it serves every console command on all interfaces "
                "without authentication; use ibsm-ctl on the Unix socket (ctl_socket, access "
                "checked by SO_PEERCRED), or console loopback for 127.0.0.1 only");
  const std::pair<const char*, const std::string*> plugin_keys[] = {
      {"event_plugin_name", &o.event_plugin_name},
      {"event_plugin_options", &o.event_plugin_options}};
  for (const auto& [key, value] : plugin_keys) {
    if (value->empty()) continue;
    return fail(kEventPluginRefused,
                std::string(key) + " '" + *value +
                    "' is refused: OpenSM's event plugins are built against OpenSM's internal "
                    "structures and cannot be loaded by ibsm; read ibsm's event stream instead "
                    "(ibsm-ctl events --follow, or events_file: one JSON object per line) or its "
                    "metrics endpoint");
  }
  return {};
}

}  // namespace ibsm::conf
