#include "agent/nm_checkpoint.hpp"

#include "agent/errors.hpp"

namespace ibsm::agent {
namespace {

constexpr const char* kService = "org.freedesktop.NetworkManager";
constexpr const char* kObject = "/org/freedesktop/NetworkManager";

Status call(const CommandRunner& runner, std::vector<std::string> args, std::string* output) {
  std::vector<std::string> argv{"busctl", "--system", "call", kService, kObject, kService};
  argv.insert(argv.end(), args.begin(), args.end());
  CommandResult r = runner.run(argv);
  if (output) *output = r.output;
  if (r.status == 0) return {};
  std::string cmd;
  for (const auto& a : argv)
    cmd += (cmd.empty() ? "" : " ") + a;
  return fail(kCheckpointFailed, cmd + " exited " + std::to_string(r.status) + ": " + r.output);
}

}  // namespace

Result<std::string> parse_checkpoint_path(const std::string& out) {
  auto q = out.find('"');
  auto e = q == std::string::npos ? q : out.find('"', q + 1);
  if (out.rfind("o ", 0) != 0 || e == std::string::npos)
    return fail(kCheckpointFailed, "unexpected answer to CheckpointCreate: " + out);
  std::string path = out.substr(q + 1, e - q - 1);
  if (path.rfind("/org/freedesktop/NetworkManager/Checkpoint/", 0) != 0)
    return fail(kCheckpointFailed, "unexpected checkpoint path: " + path);
  return path;
}

Result<std::string> BusctlCheckpointer::create(unsigned rollback_timeout_s) {
  std::string out;
  if (auto s = call(runner_,
                    {"CheckpointCreate", "aouu", "0", std::to_string(rollback_timeout_s),
                     std::to_string(kCheckpointFlags)},
                    &out);
      !s)
    return fail(s.error());
  return parse_checkpoint_path(out);
}

Status BusctlCheckpointer::rollback(const std::string& id) {
  return call(runner_, {"CheckpointRollback", "o", id}, nullptr);
}

Status BusctlCheckpointer::destroy(const std::string& id) {
  return call(runner_, {"CheckpointDestroy", "o", id}, nullptr);
}

}  // namespace ibsm::agent
