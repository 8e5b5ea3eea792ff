// opensm.conf fdr10: FDR10 (Mellanox's 10 Gb/s-lane speed with 64b/66b coding)
// exists only in the vendor attribute MLNXExtendedPortInfo
// (mad/attr/mlnx_ext_port_info.hpp). As OpenSM does, on devices known to implement
// the attribute the SM reads it for each physical port whose link is up and, where
// the port supports FDR10, writes LinkSpeedEnabled: FDR10 with fdr10 1, nothing with
// fdr10 2; fdr10 0 sends no vendor MAD at all. Neither SM retrains a link for it:
// the active speed follows the enables when the link next trains.
//
// OpenSM reads the attribute of every such port in every heavy sweep. The SM keeps
// what a port answered (Port::mlnx_ext) and reads it again only when the port is
// new to it or in Init (its link came up again since, so the device may have reset
// it). Like OpenSM, whose receiver only logs, nothing here fails a sweep: a port
// that refuses a Get or Set (an error status) is taken as one without FDR10 until
// its link comes up again; one that does not answer is asked again next sweep.
#pragma once

#include <cstdint>
#include <optional>

#include "common/log.hpp"
#include "mad/attr/mlnx_ext_port_info.hpp"
#include "mad/smp_client.hpp"
#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

// opensm.conf fdr10 values (0-2, checked when the option is read).
enum class Fdr10Mode : std::uint8_t { kOff = 0, kEnable = 1, kDisable = 2 };

// The MLNXExtendedPortInfo Set for a port that answered `cur`, or nullopt when the
// port lacks FDR10 or already has it enabled (kEnable) or disabled (kDisable).
// The Set copies `cur`, sets StateChangeEnable and writes LinkSpeedEnabled whole
// (FDR10 is its only defined bit), as OpenSM does.
std::optional<mad::MlnxExtPortInfo> fdr10_set(Fdr10Mode mode, const mad::MlnxExtPortInfo& cur);

// Heavy sweep, programming phase, before the phase's barrier: queues the Gets and
// Sets above. `f` must outlive the barrier (answers are stored in it); `last` is the
// previous sweep's model, whose answers are reused for ports not in Init.
void program_fdr10(Fabric& f, const Fabric& last, Fdr10Mode mode, mad::SmpClient& client,
                   const Logger& log);

}  // namespace ibsm::sm
