// Whether the running kernel has a module: loaded (/sys/module), built in
// (modules.builtin) or installed (modules.dep) for /proc/sys/kernel/osrelease.
#pragma once

#include <string>

#include "agent/fs.hpp"

namespace ibsm::agent {

// The name the kernel lists a module under: '-' -> '_', and the rpcrdma aliases.
std::string canonical_module(const std::string& name);
bool module_loaded(const Fs& fs, const std::string& name);
bool module_available(const Fs& fs, const std::string& name);

}  // namespace ibsm::agent
