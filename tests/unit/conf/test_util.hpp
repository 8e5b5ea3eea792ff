// Helpers shared by the conf unit tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "conf/invocation.hpp"

namespace ibsm::conf::testing {

// A fresh directory per test, removed at the end.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("ibsm-conf-" + std::string(info->test_suite_name()) + "-" + info->name() + "-" +
             std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& contents) const {
    const auto p = path_ / name;
    std::ofstream(p) << contents;
    return p.string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// An environment without a default config file, so tests do not depend on /etc.
inline Environment test_env() {
  Environment env;
  env.default_config_file.clear();
  return env;
}

inline Result<Invocation> invoke(std::vector<std::string> args,
                                 const Environment& env = test_env()) {
  std::vector<const char*> argv{"ibsm"};
  for (const auto& a : args)
    argv.push_back(a.c_str());
  return parse_invocation(static_cast<int>(argv.size()), argv.data(), env);
}

// The options of a successful "run" invocation (fails the test otherwise).
inline Options run_options(const Result<Invocation>& r) {
  if (!r.ok()) {
    ADD_FAILURE() << to_string(r.error());
    return {};
  }
  if (!std::holds_alternative<Run>(*r)) {
    ADD_FAILURE() << "expected Run, got ExitNow";
    return {};
  }
  return std::get<Run>(*r).options;
}

}  // namespace ibsm::conf::testing
