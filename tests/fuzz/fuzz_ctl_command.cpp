// Fuzz target: any bytes as request lines of the control socket (ctl/command.hpp).
// Each newline-separated piece is parsed; a refusal must carry an ID of ctl's range
// (IBSM-8001..8199) and a message, an accepted command must be one of the table, and
// the read-only answer to it, from a published snapshot with an empty fabric, must be
// produced without throwing (a bad regexp in dump_portguid is an error, not an abort).
#include <cstddef>
#include <cstdint>
#include <string>

#include "ctl/command.hpp"
#include "ctl/reports/reports.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  constexpr std::string_view kTarget = "ctl_command";
  static ops::EventBus bus(10);
  static const auto snap = [] {
    auto s = std::make_shared<ops::OpsSnapshot>();
    auto fabric = std::make_shared<sa::Snapshot>();
    fabric->index();
    s->fabric = fabric;
    s->options = std::make_shared<conf::Options>();
    return s;
  }();
  const std::string_view text = fuzz::as_text(data, size);
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line =
        text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    auto cmd = ctl::parse_command(line);
    if (!cmd.ok()) {
      fuzz::expect(cmd.error().id.code >= 8001 && cmd.error().id.code <= 8199, kTarget,
                   "refusal outside IBSM-8001..8199: " + cmd.error().message);
      fuzz::expect(!cmd.error().message.empty(), kTarget, "refusal without a message");
    } else {
      bool known = false;
      for (const auto& s : ctl::command_specs())
        known = known || s.id == cmd->id;
      fuzz::expect(known, kTarget, "accepted a command not in the table");
      if (!cmd->changes || cmd->id == ctl::CommandId::kDumpPortGuid) {
        const ctl::Answer a = cmd->id == ctl::CommandId::kHelp
                                  ? ctl::answer_help(*cmd)
                                  : ctl::answer_read_only(*cmd, *snap, bus);
        fuzz::expect(a.ok || (a.error.code >= 8001 && a.error.code <= 8199), kTarget,
                     "answer error outside ctl's range");
      }
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return 0;
}
