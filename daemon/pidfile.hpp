// -J FILE, as OpenSM's main.c: an old file of that name is replaced, a file
// that cannot be written stops the start, and the file is removed on exit. (OpenSM
// writes it only with -B; ibsm in the foreground too, where a service manager may
// want it as well.)
#pragma once

#include <string>

#include "common/result.hpp"

namespace ibsm::daemon {

class Pidfile {
 public:
  explicit Pidfile(std::string path) : path_(std::move(path)) {}
  Pidfile(const Pidfile&) = delete;
  Pidfile& operator=(const Pidfile&) = delete;
  ~Pidfile();
  // Writes this process's pid; an empty path writes nothing. A file that cannot be
  // written is IBSM-5023 (conf::kPidfileUnwritable).
  Status write();

 private:
  std::string path_;
  bool written_ = false;
};

}  // namespace ibsm::daemon
