// The grammars every string and number from the node file, sysfs or the wire must
// match before the agent uses it in a path, a command's argv or a file it renders
// (ifupdown stanzas run their pre-up/up/down lines through /bin/sh as root; udev
// rules, systemd units and limits.conf have their own quoting). Each grammar admits
// no shell metacharacter, quote, '%', '\\', whitespace or newline, so a value that
// passes is inert in every sink. Pure functions, no exceptions.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace ibsm::agent {

// A Linux network interface name as the agent accepts it: [A-Za-z0-9_.:-]{1,15},
// not "." or "..". The kernel (dev_valid_name) allows more (any byte but '/', ':' and
// whitespace); the agent leaves such interfaces alone.
bool valid_ifname(std::string_view s);

// An RDMA device name (mlx5_0, rxe0, ibp0s8): [A-Za-z0-9_.:-]{1,64} (IB_DEVICE_NAME_MAX),
// not "." or "..".
bool valid_rdma_device_name(std::string_view s);

// A kernel module name: [A-Za-z0-9_-]{1,56} (MODULE_NAME_LEN - 1).
bool valid_module_name(std::string_view s);

// A group name for limits.conf: [A-Za-z_][A-Za-z0-9_.-]{0,31} (useradd's rule, less '$').
bool valid_group_name(std::string_view s);

// A systemd service name: [A-Za-z0-9_.:@-]+ ending in ".service", at most 255 bytes
// (no '\\' escapes, no '%' specifiers, no '/').
bool valid_service_name(std::string_view s);

// An absolute path of plain components: '/' then components of [A-Za-z0-9_.+@-], none
// "." or "..", no "//", no trailing '/', at most 4095 bytes.
bool valid_plain_path(std::string_view s);

// An NFS export as mount.nfs takes it: HOST:/PATH, HOST of [A-Za-z0-9_.:-] or a
// bracketed IPv6 address, PATH a valid_plain_path (or "/" alone).
bool valid_nfs_export(std::string_view s);

// One NFS mount option: [A-Za-z0-9_.=:/+@-]{1,255}.
bool valid_mount_option(std::string_view s);

// An IP address with its prefix length and nothing else: inet_pton(AF_INET) with
// /0..32, or inet_pton(AF_INET6) with /0..128. The prefix is 1-3 decimal digits.
bool valid_address(std::string_view s);

// A whole decimal (or, with base 16, hex without 0x) string as an unsigned in
// [0, hi]; nothing else allowed in the string (no sign, no space, no overflow).
std::optional<std::uint64_t> parse_uint(std::string_view s, std::uint64_t hi, int base = 10);

// As parse_uint, after trimming surrounding whitespace and an optional 0x (base 16)
// as sysfs writes values ("0x8001\n", "  4\n").
std::optional<std::uint64_t> parse_sysfs_uint(std::string_view s, std::uint64_t hi, int base = 10);

}  // namespace ibsm::agent
