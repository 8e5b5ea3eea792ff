// The helpers every report shares (report_kit.hpp).
#include "ctl/reports/report_kit.hpp"

#include <spdlog/fmt/fmt.h>

#include "common/json_writer.hpp"
#include "ctl/errors.hpp"

namespace ibsm::ctl::reports {

std::string hex16(std::uint64_t g) {
  return fmt::format("0x{:016x}", g);
}

Answer fail_answer(ErrorId id, std::string msg) {
  return error_answer(Error{id, std::move(msg)});
}

Answer no_fabric() {
  return fail_answer(kErrNoFabric,
                     "no fabric snapshot yet: no heavy sweep has completed (or a big fabric's "
                     "snapshot is being rebuilt); retry after the next SUBNET UP");
}

Answer simple(std::string text, std::string_view key, const std::string& value) {
  Answer a;
  a.text = std::move(text);
  JsonWriter j;
  j.begin_object().field(key, value).end_object();
  a.json = j.text();
  return a;
}

std::string NodeNamer::operator()(const sa::SnapNode& n) const {
  return names::name_of(map_, n.guid(), n.description);
}

}  // namespace ibsm::ctl::reports
