// The text forms of OpenSM's QoS keys (qos_[ca_|sw0_|swe_|rtr_]vlarb_high, _vlarb_low,
// _sl2vl), parsed and checked here so that a malformed value is a configuration error
// naming the key and the fault, at start-up and on SIGHUP, never a surprise in a sweep.
//
// Syntax, as OpenSM 3.3.23 reads them (osm_qos.c, osm_subnet.c subn_verify_vlarb/sl2vl;
// numbers are C literals: 12, 0xc, 014):
//   VLArbitration: "VL:weight,VL:weight,..." with VL 0-14 and weight 0-255 (64-byte
//     credits a turn may send, 0 = skip the entry), at most 64 entries (IBA 14.2.5.9:
//     two blocks of 32 per priority).
//   SL2VL: 16 VLs "vl0,vl1,...,vl15", the VL of SL 0 first, each 0-15 (15 = drop).
// OpenSM only warns about values out of these bounds and then programs something else
// (VL mod 15, weights truncated, missing SLs on VL 0); ibsm refuses them. One trailing
// comma is accepted, as OpenSM parses it harmlessly.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"

namespace ibsm::conf {

// OpenSM's built-in tables (osm_base.h OSM_DEFAULT_QOS_*), used where neither a port
// class's key nor the qos_ base key is set.
inline constexpr std::string_view kDefaultQosVlarbHigh =
    "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
inline constexpr std::string_view kDefaultQosVlarbLow =
    "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
inline constexpr std::string_view kDefaultQosSl2Vl = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";
inline constexpr unsigned kDefaultQosMaxVls = 15;
inline constexpr unsigned kDefaultQosHighLimit = 0;

struct VlArbEntry {
  std::uint8_t vl = 0;
  std::uint8_t weight = 0;
  bool operator==(const VlArbEntry&) const = default;
};
inline constexpr std::size_t kMaxVlArbEntries = 64;

// The entries in order; an error (kBadValue) says which entry is wrong and why.
Result<std::vector<VlArbEntry>> parse_vlarb_list(std::string_view text);
// VL by SL.
Result<std::array<std::uint8_t, 16>> parse_sl2vl_list(std::string_view text);

// The option table's checks (conf/option_spec.hpp RawCheck / RawDiagnose): the first
// names the accepted syntax, the second what is wrong with a value ("" when nothing).
const char* check_vlarb_list(std::string_view v);
std::string diagnose_vlarb_list(std::string_view v);
const char* check_sl2vl_list(std::string_view v);
std::string diagnose_sl2vl_list(std::string_view v);

}  // namespace ibsm::conf
