// Fuzz target: any bytes as partitions.conf. The reader, the formatter and the
// editors must not crash or hang, and formatting must keep the model.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "partitions/fabric_snapshot.hpp"
#include "partitions/formatter.hpp"
#include "partitions/parser.hpp"
#include "partitions/planner.hpp"
#include "partitions/resolve.hpp"
#include "partitions/tool/editor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ibsm::partitions;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const SyntaxTree tree = parse_syntax(text);
  const ParseResult parsed = analyze(tree);
  const ResolvedConfig resolved = resolve(parsed.config);
  Fabric fabric;
  FabricPort p;
  p.port_guid = p.node_guid = 0x10;
  p.pkey_capacity = 40;
  p.is_sm_port = true;
  p.pkeys = {0xffff};
  fabric.ports.push_back(p);
  (void)plan_pkeys(resolved, fabric);
  (void)read_fabric_snapshot(text);
  if (parsed.ok()) {
    const std::string formatted = format_file(tree);
    if (!(parse_partitions(formatted).config == parsed.config)) std::abort();
    if (format_file(parse_syntax(formatted)) != formatted) std::abort();
    if (!(parse_partitions(config_text(parsed.config)).config == parsed.config)) std::abort();
    (void)add_members(text, "Default", {"0x1234=full"});
    (void)remove_members(text, "Default", {"ALL"});
    (void)set_flags(text, "Default", {"mtu=4096"}, {"ipoib"});
  }
  return 0;
}
