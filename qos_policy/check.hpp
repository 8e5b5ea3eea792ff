// `ibsm --check-qos-policy FILE [options]`: reads a policy as the SM would, prints it
// normalised, and shows which rule and level each given (source, destination,
// service-id, pkey, qos-class) tuple gets. OpenSM has nothing like it.
//
//   --port GUID[,type=ca|switch|router][,desc=NodeDescription][,num=N][,sm]
//        a port of the (imagined) fabric; ports the tuples name are CAs unless declared
//   --partitions FILE    partitions.conf for groups by partition/pkey and IPoIB rules
//   --match SRC,DST[,service-id=N][,pkey=N][,qos-class=N]
//        a PathRecord query from port GUID SRC to port GUID DST
//
// Exit status: 0 the policy is good, 1 it is refused (the error on stderr with
// file:line:column), 2 a bad command line.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace ibsm::qos_policy {

int run_check(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace ibsm::qos_policy
