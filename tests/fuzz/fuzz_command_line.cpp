// Fuzz target: any bytes as a command line (conf/command_line.hpp), one argument per
// NUL- or newline-separated piece, the way OpenSM's getopt_long_only reads them. The
// splitter must refuse what it cannot take with an error (Boost.Program_options throws;
// none of that may escape), and every flag use it returns names a flag and carries an
// argument only when the flag takes one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "conf/command_line.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "command_line";
  std::vector<std::string> args{"ibsm"};
  std::string current;
  for (char c : fuzz::as_text(data, size)) {
    if (c == '\0' || c == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!current.empty()) args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  argv.push_back(nullptr);
  auto uses = conf::split_command_line(static_cast<int>(args.size()), argv.data());
  if (!uses.ok()) return 0;
  for (const auto& u : *uses) {
    fuzz::expect(u.flag != nullptr, kTarget, "a flag use names no flag: " + u.spelled);
    fuzz::expect(u.flag->takes_arg || u.value.empty(), kTarget,
                 "a switch came with an argument: " + u.spelled);
  }
  return 0;
}
