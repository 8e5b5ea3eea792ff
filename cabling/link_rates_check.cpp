#include "cabling/link_rates_check.hpp"

#include <string>
#include <utility>

namespace ibsm::cabling {

DeviationEnd deviation_end(const FabricIndex& fx, LinkEnd e) {
  const auto& n = fx.fabric().nodes[e.node];
  return {n.guid, e.port, n.name};
}

void check_link_rate(const FabricIndex& fx, LinkEnd a, LinkEnd b, std::uint8_t expected_width,
                     Speed expected_speed, RateReference ref, std::vector<Deviation>& out,
                     bool best_when_unstated) {
  const DiscoveredPort* pa = fx.port(a.node, a.port);
  const DiscoveredPort* pb = fx.port(b.node, b.port);
  if (pa == nullptr || pb == nullptr) return;
  DeviationEnd ea = deviation_end(fx, a), eb = deviation_end(fx, b);
  if (std::pair(eb.guid, eb.port) < std::pair(ea.guid, ea.port)) {
    std::swap(ea, eb);
    std::swap(pa, pb);
  }
  const bool enabled = ref == RateReference::kEnabled;
  // Width: the active width of either end (both ends of a cable agree).
  const std::uint8_t width = pa->width_active ? pa->width_active : pb->width_active;
  std::uint8_t want_width = expected_width;
  if (want_width == 0 && best_when_unstated) {
    const WidthSet sa = enabled ? pa->width_enabled : pa->width_supported;
    const WidthSet sb = enabled ? pb->width_enabled : pb->width_supported;
    want_width = best_width(sa & sb);
    if (want_width != 0 && width != 0 && width > want_width) want_width = width;
  }
  if (width != 0 && want_width != 0 && width != want_width)
    out.push_back(
        {DeviationKind::kWidthMismatch, ea, eb, width_name(want_width), width_name(width)});
  const Speed speed = pa->speed_active != Speed::kUnknown ? pa->speed_active : pb->speed_active;
  Speed want_speed = expected_speed;
  if (want_speed == Speed::kUnknown && best_when_unstated) {
    const SpeedSet sa = enabled ? pa->speed_enabled : pa->speed_supported;
    const SpeedSet sb = enabled ? pb->speed_enabled : pb->speed_supported;
    want_speed = best_speed(sa & sb);
    if (want_speed != Speed::kUnknown && speed > want_speed) want_speed = speed;
  }
  if (speed != Speed::kUnknown && want_speed != Speed::kUnknown && speed != want_speed)
    out.push_back({DeviationKind::kSpeedMismatch, std::move(ea), std::move(eb),
                   std::string(speed_name(want_speed)), std::string(speed_name(speed))});
}

std::vector<Deviation> find_degraded_links(const DiscoveredFabric& fabric, RateReference ref) {
  const FabricIndex fx(fabric);
  std::vector<Deviation> out;
  fx.for_each_link([&](std::uint32_t a, std::uint8_t pa, std::uint32_t b, std::uint8_t pb) {
    check_link_rate(fx, {a, pa}, {b, pb}, 0, Speed::kUnknown, ref, out);
  });
  sort_deviations(out);
  return out;
}

}  // namespace ibsm::cabling
