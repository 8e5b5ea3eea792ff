// Error catalog of the partitions module (range 4xxx). Every diagnostic the parser,
// the resolver, the planner or ibsm-part can show carries one of these IDs; the
// table below is what docs/errors.md shows for them.
//
// 40xx: hard syntax errors (the file is rejected, the SM keeps its last good config)
// 41xx: soft problems OpenSM also tolerates (logged, the item is skipped)
// 42xx: planner findings, 43xx: fabric snapshot, 44xx: ibsm-part editing.
#pragma once

#include "common/error.hpp"

namespace ibsm::partitions {

inline constexpr ErrorId kMissingColon{4001};
inline constexpr ErrorId kBadPKey{4002};
inline constexpr ErrorId kBadPortGuid{4003};
inline constexpr ErrorId kEmptyStatement{4004};
inline constexpr ErrorId kUnterminatedStatement{4005};
inline constexpr ErrorId kCannotRead{4006};
inline constexpr ErrorId kPKeysExhausted{4007};

inline constexpr ErrorId kUnknownFlag{4101};
inline constexpr ErrorId kBadFlagValue{4102};
inline constexpr ErrorId kUnknownMembership{4103};
inline constexpr ErrorId kBadMgid{4104};
inline constexpr ErrorId kIpGroupPKeyMismatch{4105};
inline constexpr ErrorId kIpGroupRateMtuMismatch{4106};
inline constexpr ErrorId kIpGroupWithoutBroadcast{4107};
inline constexpr ErrorId kLongLine{4108};
inline constexpr ErrorId kOpenSmReadsDifferently{4109};
inline constexpr ErrorId kAutoPKeyTakenLater{4110};
inline constexpr ErrorId kNoStatements{4111};

inline constexpr ErrorId kPKeyTableFull{4201};
inline constexpr ErrorId kEnforcementTableTooSmall{4202};
inline constexpr ErrorId kMlidsExhausted{4203};
inline constexpr ErrorId kSmPortKeptFull{4204};

inline constexpr ErrorId kSnapshotSyntax{4301};
inline constexpr ErrorId kSnapshotVersion{4302};

inline constexpr ErrorId kNoSuchPartition{4401};
inline constexpr ErrorId kPartitionExists{4402};
inline constexpr ErrorId kWriteFailed{4403};
inline constexpr ErrorId kBadEditArgument{4404};

inline constexpr ErrorInfo kPartitionErrors[] = {
    {kMissingColon, "Partition definition without ':'",
     "A statement must start with 'Name[=PKey][,flags]:' on one line; no ':' was found before the "
     "next ';' or the end of the line.",
     "Add the ':' that separates the partition definition from its members."},
    {kBadPKey, "Bad P_Key",
     "The P_Key after '=' (or a name that starts with a digit) is not a number.",
     "Write the P_Key as a C number, e.g. 0x7fff; omit it to have one assigned."},
    {kBadPortGuid, "Bad port GUID",
     "A member is neither a keyword (ALL, ALL_CAS, ALL_SWITCHES, ALL_ROUTERS, SELF, NONE) nor a "
     "non-zero port GUID.",
     "Fix the GUID (0x-prefixed hex) or the keyword; keywords are case-sensitive."},
    {kEmptyStatement, "Empty statement", "A ';' closes a statement that has no definition.",
     "Remove the stray ';'."},
    {kUnterminatedStatement, "Statement not closed",
     "The file ends inside a statement; OpenSM accepts this, but a later append would extend it.",
     "End the statement with ';'."},
    {kCannotRead, "Cannot read partitions file", "The file exists but could not be read.",
     "Check the path and permissions."},
    {kPKeysExhausted, "No P_Key left to assign",
     "A partition without P_Key needed an automatic one, but all values 0x0001-0x7ffe are in use.",
     "Give the partition an explicit P_Key."},
    {kUnknownFlag, "Unknown flag ignored",
     "A partition or multicast group flag is not recognised (flags are case-sensitive "
     "prefixes of: ipoib, mtu, rate, sl, scope, Q_Key, TClass, FlowLabel, defmember, indx0).",
     "Fix the spelling or remove the flag."},
    {kBadFlagValue, "Bad flag value ignored",
     "A flag has a missing or out-of-range value; the flag is skipped as OpenSM does.",
     "Give a valid value, e.g. mtu=4096 or mtu=5, rate=100Gb or rate=16, sl=0..15."},
    {kUnknownMembership, "Unknown membership, limited assumed",
     "A member's '=...' is not a prefix of full, limited or both.",
     "Write =full, =limited or =both."},
    {kBadMgid, "Bad multicast GID, group skipped",
     "An mgid= value is not an IPv6-format GID or does not start with 0xff.",
     "Write a multicast GID such as ff12:401b::1."},
    {kIpGroupPKeyMismatch, "IP multicast group with foreign P_Key, group skipped",
     "The P_Key bits (bytes 4-5) of an IPoIB MGID are neither 0 nor this partition's P_Key.",
     "Write 0 in the P_Key bits (ff12:401b::1) so the partition's P_Key is filled in."},
    {kIpGroupRateMtuMismatch, "IP multicast group rate/MTU differs, group skipped",
     "IPoIB groups must use the rate and MTU of the partition's broadcast group.",
     "Remove rate=/mtu= from the mgid line or make them equal to the partition's."},
    {kIpGroupWithoutBroadcast, "IP multicast group without broadcast group, group skipped",
     "An IPoIB group is pre-created in a partition that has no IPoIB broadcast group; the SA "
     "refuses to create it (OpenSM logs ERR 1B1B).",
     "Add the 'ipoib' flag to the partition."},
    {kLongLine, "Line longer than OpenSM's buffer",
     "OpenSM reads lines in 4095-byte pieces and would cut this line in two.",
     "Split the statement over several lines or statements with the same P_Key."},
    {kOpenSmReadsDifferently, "Value that OpenSM reads differently",
     "The value uses ibsm's unit syntax (mtu=4096, rate=100Gb); OpenSM would read only the "
     "leading number as an enum.",
     "Keep it if only ibsm reads the file; write the enum (mtu=5, rate=16) to share it with "
     "OpenSM."},
    {kAutoPKeyTakenLater, "Automatic P_Key given explicitly later",
     "A partition without P_Key got an automatic value that a later statement names "
     "explicitly; as in OpenSM the two partitions are merged.",
     "Give the first partition an explicit P_Key."},
    {kNoStatements, "File without statements",
     "The file has no statement; as OpenSM does, every port becomes a full member of the "
     "default partition.",
     "Add statements, or remove the file on purpose."},
    {kPKeyTableFull, "P_Key table full",
     "A port needs more P_Keys than its PartitionCap allows; the extra ones are not set.",
     "Reduce the partitions this port belongs to."},
    {kEnforcementTableTooSmall, "Switch port cannot enforce",
     "The switch port facing an end port has fewer enforcement entries than the end port's "
     "P_Keys; enforcement is turned off on that switch port.",
     "Reduce the partitions of the end port or use part_enforce off."},
    {kMlidsExhausted, "No MLID left",
     "More multicast groups than the subnet's multicast LID range (0xC000 up).",
     "Remove mgid= lines or scopes."},
    {kSmPortKeptFull, "SM port kept a full member of the default partition",
     "The file makes the SM's own port a limited member of 0x7fff; ibsm keeps it full so "
     "that the SA stays reachable (OpenSM would make it limited).",
     "Add SELF=full to the Default statement to say so explicitly."},
    {kSnapshotSyntax, "Bad fabric snapshot line", "A line of the fabric snapshot is malformed.",
     "Regenerate the snapshot with the SM."},
    {kSnapshotVersion, "Unsupported fabric snapshot version",
     "The snapshot was written by a newer format version.", "Use a matching ibsm-part."},
    {kNoSuchPartition, "No such partition", "No statement defines the named partition.",
     "Check the name or P_Key with 'ibsm-part list'."},
    {kPartitionExists, "Partition already exists", "The name or P_Key is already defined.",
     "Use add-member or set to change it."},
    {kWriteFailed, "Cannot write partitions file",
     "Writing the temporary file, the backup or renaming failed; the original is unchanged.",
     "Check permissions and free space in the file's directory."},
    {kBadEditArgument, "Bad edit argument",
     "A member, flag or P_Key given on the command line is "
     "not valid partitions.conf syntax.",
     "See ibsm-part(8) for the accepted forms."},
};

}  // namespace ibsm::partitions
