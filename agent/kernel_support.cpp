#include "agent/kernel_support.hpp"

#include <algorithm>
#include <sstream>

namespace ibsm::agent {

std::string canonical_module(const std::string& name) {
  std::string m = name;
  std::replace(m.begin(), m.end(), '-', '_');
  // xprtrdma and svcrdma are aliases of one module (net/sunrpc/xprtrdma/module.c).
  if (m == "xprtrdma" || m == "svcrdma") return "rpcrdma";
  return m;
}

bool module_loaded(const Fs& fs, const std::string& name) {
  return fs.is_dir("/sys/module/" + canonical_module(name));
}

static bool listed(const std::string& text, const std::string& module) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::string path = line.substr(0, line.find(':'));
    std::string file = path.substr(path.rfind('/') + 1);
    file = file.substr(0, file.find(".ko"));
    if (canonical_module(file) == module) return true;
  }
  return false;
}

bool module_available(const Fs& fs, const std::string& name) {
  std::string m = canonical_module(name);
  if (module_loaded(fs, m)) return true;
  std::string release = trim(fs.read("/proc/sys/kernel/osrelease").value_or(""));
  if (release.empty()) return false;
  std::string base = "/lib/modules/" + release;
  return listed(fs.read(base + "/modules.dep").value_or(""), m) ||
         listed(fs.read(base + "/modules.builtin").value_or(""), m);
}

}  // namespace ibsm::agent
