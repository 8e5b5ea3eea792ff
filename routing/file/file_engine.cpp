#include "routing/file/file_engine.hpp"

#include <optional>
#include <string>
#include <utility>

#include "routing/errors.hpp"
#include "routing/file/lft_dump_reader.hpp"
#include "routing/file/lid_matrix_reader.hpp"
#include "routing/file/lid_matrix_routes.hpp"
#include "routing/topology_check.hpp"

namespace ibsm::routing {
namespace {

class FileEngine final : public Engine {
 public:
  FileEngine(EngineConfig::Text lfts, EngineConfig::Text lid_matrix, bool count_switch_lids)
      : lfts_(std::move(lfts)),
        lid_matrix_(std::move(lid_matrix)),
        count_switch_lids_(count_switch_lids) {}

  std::string_view name() const override { return "file"; }

  Result<Routes> route(const Topology& topo) override {
    if (!lfts_.configured() && !lid_matrix_.configured())
      return fail(kErrFileEngineNoInput,
                  "neither lfts_file (-U) nor lid_matrix_dump_file (-M) is set");
    if (auto st = validate_topology(topo); !st.ok()) return fail(st.error());

    std::optional<Routes> from_matrix;
    if (lid_matrix_.configured()) {
      if (auto st = non_empty(lid_matrix_); !st.ok()) return fail(st.error());
      auto matrix = parse_lid_matrix(lid_matrix_.text, lid_matrix_.path);
      if (!matrix.ok()) return fail(matrix.error());
      auto routes = routes_from_lid_matrix(topo, *matrix, lid_matrix_.path, count_switch_lids_);
      if (!routes.ok()) return fail(routes.error());
      from_matrix = std::move(*routes);
    }
    if (!lfts_.configured()) return std::move(*from_matrix);

    if (auto st = non_empty(lfts_); !st.ok()) return fail(st.error());
    auto dump = parse_lft_dump(lfts_.text, lfts_.path);
    if (!dump.ok()) return fail(dump.error());
    auto routes = routes_from_dump(topo, *dump, lfts_.path);
    if (!routes.ok()) return fail(routes.error());
    if (from_matrix)
      routes->warnings.insert(routes->warnings.begin(), from_matrix->warnings.begin(),
                              from_matrix->warnings.end());
    return routes;
  }

 private:
  // The SM hands over an empty text when it could not read the file (and has logged why).
  static Status non_empty(const EngineConfig::Text& file) {
    for (char c : file.text)
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return {};
    return fail(kErrFileEngineEmptyInput, file.path + ": empty or unreadable");
  }

  EngineConfig::Text lfts_;
  EngineConfig::Text lid_matrix_;
  bool count_switch_lids_ = false;
};

}  // namespace

std::unique_ptr<Engine> make_file_engine(const EngineConfig& config) {
  return std::make_unique<FileEngine>(config.lfts, config.lid_matrix,
                                      config.port_profile_switch_nodes);
}

}  // namespace ibsm::routing
