// opensm-subnet.lst: every link, once from each end, in OpenSM's exact layout,
// so scripts written against OpenSM's dump keep working:
//   { CA Ports:02 SystemGUID:... NodeGUID:... PortGUID:... VenID:000000 DevID:0000
//     Rev:000000A1 {Hca1} LID:0002 PN:01 } { SW ... PN:01 } PHY=4x LOG=ACT SPD=2.5
#pragma once

#include <ostream>
#include <string>

#include "sm/fabric/fabric.hpp"

namespace ibsm::sm {

void write_subnet_lst(std::ostream& out, const Fabric& fabric);

}  // namespace ibsm::sm
