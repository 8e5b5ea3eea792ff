#include "mad/attr/mlnx_ext_port_info.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace ibsm::mad {

namespace {

using Range = std::pair<std::uint16_t, std::uint16_t>;  // first, last DeviceID

// DeviceIDs (any VendorID) of Mellanox devices with the attribute.
constexpr std::array kMellanoxDevices = {
    Range{0x1003, 0x101b},  // ConnectX-3, Connect-IB, ConnectX-4 .. ConnectX-6
    Range{0xa2d2, 0xa2d2},  // BlueField
    Range{0xc738, 0xc73b},  // SwitchX family
    Range{0xc839, 0xc839}, Range{0xcb20, 0xcb20},  // Switch-IB family
    Range{0xcf08, 0xcf09}, Range{0xd2f0, 0xd2f0},  // Quantum
};

constexpr std::uint32_t kBullVendorId = 0x119f;
constexpr std::array kBullDevices = {
    Range{0x1b02, 0x1b02}, Range{0x1b50, 0x1b50},  // Switch-X based
    Range{0x1ba0, 0x1ba0}, Range{0x1bd0, 0x1bd5},  // Switch-IB / Switch-IB 2 based
    Range{0x1bf0, 0x1bf0},                         // Quantum based
    Range{0x1b33, 0x1b33}, Range{0x1b73, 0x1b73},
    Range{0x1b40, 0x1b41}, Range{0x1b60, 0x1b61},  // ConnectX-3 based
    Range{0x1b83, 0x1b83}, Range{0x1b93, 0x1b94},  // Connect-IB based
    Range{0x1bb4, 0x1bb5}, Range{0x1bc4, 0x1bc6},  // ConnectX-4 / Sequana HDR based
};

template <std::size_t N>
bool listed(const std::array<Range, N>& ranges, std::uint16_t id) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [id](const Range& r) { return id >= r.first && id <= r.second; });
}

}  // namespace

bool has_mlnx_ext_port_info(std::uint32_t vendor_id, std::uint16_t device_id) {
  return listed(kMellanoxDevices, device_id) ||
         (vendor_id == kBullVendorId && listed(kBullDevices, device_id));
}

}  // namespace ibsm::mad
