#include "conf/invocation.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "conf/errors.hpp"

extern char** environ;

namespace ibsm::conf {

Environment Environment::from_process() {
  Environment env;
  for (const char* name : {"OSM_CACHE_DIR", "OSM_TMP_DIR"}) {
    if (const char* v = std::getenv(name)) env.vars[name] = v;
  }
  return env;
}

Result<Invocation> parse_invocation(int argc, const char* const* argv, const Environment& env) {
  (void)argc;
  (void)argv;
  Run run;
  if (auto it = env.vars.find("OSM_CACHE_DIR"); it != env.vars.end())
    run.options.cache_dir = it->second;
  if (auto it = env.vars.find("OSM_TMP_DIR"); it != env.vars.end())
    run.options.tmp_dir = it->second;
  return Invocation{std::move(run)};
}

int perform(const ExitNow& e) {
  std::cout << e.out << std::flush;
  std::cerr << e.err << std::flush;
  if (e.file) {
    std::ofstream f(e.file->path, std::ios::trunc);
    f << e.file->contents;
    if (!f.flush()) {
      std::cerr << to_string(Error{kFileUnwritable, "cannot write " + e.file->path}) << "\n";
      return 1;
    }
  }
  return e.code;
}

}  // namespace ibsm::conf
