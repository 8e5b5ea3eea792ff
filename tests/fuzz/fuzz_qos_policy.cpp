// Fuzz target: any bytes as a QoS policy file (qos_policy/parser.hpp). Beyond "no
// crash": a refused file names a position inside it and an ID of the policy catalog;
// an accepted one has a default level and resolved references, compiles for a small
// fabric, answers matches with a level that has an SL, and prints.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "qos_policy/compile.hpp"
#include "qos_policy/errors.hpp"
#include "qos_policy/format.hpp"
#include "qos_policy/parser.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm;
  using namespace ibsm::qos_policy;
  constexpr std::string_view kTarget = "qos_policy";
  const std::string_view text = fuzz::as_text(data, size);
  auto r = parse_policy(text);
  if (!r.ok()) {
    const ParseError& e = r.error();
    std::size_t lines = 1;
    for (char c : text)
      lines += c == '\n' ? 1 : 0;
    fuzz::expect(e.id == kPolicySyntax || e.id == kPolicyReference, kTarget, "unexpected ID");
    fuzz::expect(e.pos.line <= lines, kTarget, "error line beyond the file");
    fuzz::expect(!e.message.empty(), kTarget, "empty message");
    fuzz::expect(format_error(e, "f").find("f") != std::string::npos, kTarget, "no file name");
    return 0;
  }
  const Policy& p = *r;
  fuzz::expect(p.default_level < p.levels.size(), kTarget, "no default level");
  for (const MatchRule& m : p.rules) {
    fuzz::expect(m.level < p.levels.size(), kTarget, "rule names no level");
    for (auto g : m.source_groups)
      fuzz::expect(g < p.groups.size(), kTarget, "rule names no group");
    for (auto g : m.destination_groups)
      fuzz::expect(g < p.groups.size(), kTarget, "rule names no group");
  }
  static_cast<void>(format_policy(p));
  FabricView f;
  for (std::uint64_t i = 0; i < 6; ++i) {
    FabricPort port;
    port.guid = 1 + i * 0x11;
    port.node_type = i == 5 ? kTypeSwitch : kTypeCa;
    port.node_desc = "node" + std::to_string(i);
    port.port_nums = {1};
    port.is_sm_port = i == 0;
    port.partitions = {0x7fff, static_cast<std::uint16_t>(i)};
    f.ports.push_back(port);
  }
  f.partitions = {{"Default", 0x7fff, 6}, {"p1", 1, 2}};
  std::vector<CompileNote> notes;
  auto c = compile(std::make_shared<const Policy>(std::move(*r)), f, notes);
  if (!c) {
    fuzz::expect(!notes.empty() && notes.back().error, kTarget, "refused without a note");
    return 0;
  }
  for (std::uint32_t s = 0; s < 6; ++s) {
    for (std::uint32_t d = 0; d < 6; ++d) {
      const Level& l = c->match(s, d, {std::uint16_t(s), 0x10000 + d, std::uint16_t(d)});
      fuzz::expect(l.sl.has_value() && *l.sl < 16, kTarget, "a level without a valid SL");
    }
  }
  return 0;
}
