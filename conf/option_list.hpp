// THE option table: every opensm.conf key of OpenSM 3.3.23 (160), one row each,
// in the order of OpenSM's own dump, then ibsm's extension keys (section kIbsm,
// see is_ibsm_extension), which OpenSM does not have. Everything else (the
// Options struct, the opensm.conf reader and writer, the TOML reader and
// writer, the command line, --help, docs/configuration.md) is generated from
// these rows.
//
// Columns:
//   section  topic (TOML table, heading in a written opensm.conf)
//   key      opensm.conf key = Options field = TOML key
//   type     C++ type of the field (width as in OpenSM)
//   default  OpenSM's compiled default ("(null)" strings are empty); ibsm's own
//            default for an extension key
//   spec     how the value is checked and written (conf/option_spec.hpp)
//   reload   kHup: re-read on SIGHUP; kRestart: only at start-up
//   impl     kYes once ibsm acts on it; flipping this is the one-line change
//   cli      command-line flag (short, long) and what it does
//   help     one line for --help, the docs and the written config
//
// Including this file has no effect by itself; define the X macro and expand
// IBSM_CONF_OPTIONS(X).
#pragma once

#include <cstdint>
#include <string>

#include "conf/cc_values.hpp"
#include "conf/option_spec.hpp"
#include "conf/qos_values.hpp"

// clang-format off
#define IBSM_CONF_OPTIONS(X) \
  /* ---- device attributes ---- */ \
  X(kDevice, guid, std::uint64_t, 0, hex(16), kRestart, kYes, cli_hex('g', "guid"), "Port GUID the SM binds to; 0 = the first active port") \
  X(kDevice, m_key, std::uint64_t, 0, hex(16), kHup, kYes, no_cli(), "M_Key programmed into every CA/router port and switch port 0; 0 = M_Key not managed") \
  X(kDevice, m_key_lease_period, std::uint16_t, 0, dec(), kHup, kYes, no_cli(), "M_Key lease period in seconds") \
  X(kDevice, m_key_protection_level, std::uint8_t, 0, dec(0, 3), kHup, kYes, no_cli(), "M_Key protection level (0-3)") \
  X(kDevice, m_key_lookup, bool, true, flag(), kHup, kYes, no_cli(), "Look up the M_Key of unknown ports in the guid2mkey cache file") \
  X(kDevice, sm_key, std::uint64_t, 1, hex(16), kHup, kYes, cli_hex('k', "smkey"), "SM_Key used to authenticate SMInfo between SMs") \
  X(kDevice, sa_key, std::uint64_t, 1, hex(16), kHup, kYes, no_cli(), "SA_Key that marks SA queries as trusted") \
  X(kDevice, subnet_prefix, std::uint64_t, 0xfe80000000000000ULL, hex(16), kRestart, kYes, cli_hex(0, "subnet_prefix"), "Subnet prefix (upper 64 bits of every port GID)") \
  X(kDevice, lmc, std::uint8_t, 0, dec(0, 7), kRestart, kYes, cli_arg('l', "lmc"), "LID mask control: each port gets 2^lmc LIDs (0-7)") \
  X(kDevice, lmc_esp0, bool, false, flag(), kRestart, kYes, no_cli(), "Apply the LMC to enhanced switch port 0 as well") \
  X(kDevice, sm_sl, std::uint8_t, 0, dec(0, 15), kHup, kYes, cli_arg(0, "sm_sl"), "Service level of SM/SA traffic (0-15)") \
  X(kDevice, packet_life_time, std::uint8_t, 0x12, hex(2, 0, 31), kHup, kYes, no_cli(), "Switch packet lifetime code: 4.096us * 2^value; 0x14 and above = infinite") \
  X(kDevice, vl_stall_count, std::uint8_t, 0x07, hex(2, 0, 7), kHup, kYes, no_cli(), "Dropped packets in a row that put a switch-to-switch VL into VLStalled") \
  X(kDevice, leaf_vl_stall_count, std::uint8_t, 0x07, hex(2, 0, 7), kHup, kYes, no_cli(), "As vl_stall_count, for switch ports facing a CA or router") \
  X(kDevice, head_of_queue_lifetime, std::uint8_t, 0x12, hex(2, 0, 31), kHup, kYes, no_cli(), "Head-of-queue lifetime code on switch-to-switch ports; 0x14 and above = infinite") \
  X(kDevice, leaf_head_of_queue_lifetime, std::uint8_t, 0x10, hex(2, 0, 31), kHup, kYes, no_cli(), "Head-of-queue lifetime code on switch ports facing a CA or router") \
  X(kDevice, max_op_vls, std::uint8_t, 5, dec(1, 5), kHup, kYes, no_cli(), "Upper limit of operational VLs (1=VL0, 2=VL0-1, 3=VL0-3, 4=VL0-7, 5=VL0-14)") \
  X(kDevice, force_link_speed, std::uint8_t, 15, dec(), kHup, kYes, no_cli(), "PortInfo.LinkSpeedEnabled written to CA, router and switch external ports holding another: 1-7 = those of the speeds 1 2.5, 2 5, 4 10 Gbps the port supports, 15 = LinkSpeedSupported (where enabled differs from it), 0 = leave; reserved codes act as 15, as in OpenSM") \
  X(kDevice, force_link_speed_ext, std::uint8_t, 31, dec(), kHup, kYes, no_cli(), "PortInfo.LinkSpeedExtEnabled written where both ends of a link advertise extended speeds and it differs: 1-15 = those of 1 14, 2 25, 4 50, 8 100 Gbps the port supports, 30 = none, 31 = LinkSpeedExtSupported, 0 = leave; reserved codes act as 31. XDR (LinkSpeedExtEnabled2, 212.5 Gbps) has no OpenSM key: ports keep what they enable") \
  X(kDevice, force_link_width, std::uint8_t, 255, dec(), kHup, kYes, no_cli(), "PortInfo.LinkWidthEnabled written to CA, router and switch external ports holding another: 1-31 = those of 1 1x, 2 4x, 4 8x, 8 12x, 16 2x the port supports (sets with 2x only where CapabilityMask2 has it), 255 = LinkWidthSupported (where enabled differs), 0 = leave; reserved codes act as 255") \
  X(kDevice, fdr10, std::uint8_t, 1, dec(0, 2), kHup, kYes, no_cli(), "FDR10 in Mellanox's MLNXExtendedPortInfo, on the devices OpenSM lists: 1 = enable, 2 = disable on ports supporting it (no link is retrained for it); 0 = send no vendor MADs") \
  X(kDevice, subnet_timeout, std::uint8_t, 18, dec(0, 31), kHup, kYes, no_cli(), "Subnet timeout code for all ports: 4.096us * 2^value") \
  X(kDevice, local_phy_errors_threshold, std::uint8_t, 0x08, hex(2, 0, 15), kHup, kYes, no_cli(), "PortInfo.LocalPhyErrors written to CA, router and switch external ports: local physical errors that make the port send Trap 129") \
  X(kDevice, overrun_errors_threshold, std::uint8_t, 0x08, hex(2, 0, 15), kHup, kYes, no_cli(), "PortInfo.OverrunErrors written to CA, router and switch external ports: buffer overrun errors that make the port send Trap 130") \
  X(kDevice, use_mfttop, bool, true, flag(), kHup, kYes, no_cli(), "Program SwitchInfo.MulticastFDBTop when the switch supports it") \
  /* ---- partitioning ---- */ \
  X(kPartitions, partition_config_file, std::string, "/etc/opensm/partitions.conf", text(), kRestart, kYes, cli_arg('P', "Pconfig"), "Partition configuration file") \
  X(kPartitions, no_partition_enforcement, bool, false, flag(), kHup, kYes, cli_set('N', "no_part_enforce"), "Deprecated: disable partition enforcement on switches (use part_enforce off)") \
  X(kPartitions, part_enforce, std::string, "both", choice("both", "in", "out", "off"), kHup, kYes, cli_arg('Z', "part_enforce"), "Switch partition enforcement: both, in, out or off") \
  X(kPartitions, allow_both_pkeys, bool, false, flag(), kRestart, kYes, cli_set('W', "allow_both_pkeys"), "Allow full and limited membership of the same P_Key on one port") \
  X(kPartitions, keep_pkey_indexes, bool, true, flag(), kHup, kYes, no_cli(), "Keep the index of a P_Key a port already holds when its table is recomputed; FALSE lays every end port's table out afresh each sweep, packed in OpenSM's order (removed partitions leave no holes, indexes may move)") \
  X(kPartitions, sm_assigned_guid, std::uint8_t, 0x00, hex(2), kHup, kYes, no_cli(), "Byte placed in SM-assigned alias GUIDs; make it unique per subnet") \
  /* ---- sweep ---- */ \
  X(kSweep, sweep_interval, std::uint32_t, 10, dec(), kHup, kYes, cli_arg('s', "sweep"), "Seconds between light sweeps; 0 = no periodic sweeps") \
  X(kSweep, reassign_lids, bool, false, flag(), kHup, kYes, cli_set('r', "reassign_lids"), "Reassign all LIDs instead of keeping the current ones") \
  X(kSweep, force_heavy_sweep, bool, false, flag(), kHup, kYes, no_cli(), "Make every sweep a heavy sweep") \
  X(kSweep, sweep_on_trap, bool, true, flag(), kHup, kYes, no_cli(), "Start a heavy sweep on Trap 128, 144 and 145 (and once when a port turns unhealthy)") \
  /* ---- routing ---- */ \
  X(kRouting, port_profile_switch_nodes, bool, false, flag(), kHup, kYes, no_cli(), "Count switches as link subscribers when balancing routes") \
  X(kRouting, port_prof_ignore_file, std::string, "", text(), kRestart, kYes, cli_arg('i', "ignore_guids"), "Port GUIDs ignored by route balancing") \
  X(kRouting, hop_weights_file, std::string, "", text(), kRestart, kYes, cli_arg('w', "hop_weights_file"), "Per-output-port hop weights") \
  X(kRouting, port_search_ordering_file, std::string, "", text(), kRestart, kYes, cli_arg('O', "port_search_ordering_file", "dimn_ports_file"), "Per-switch port search order (or DOR dimension ports)") \
  X(kRouting, routing_engine, std::string, "", text(), kRestart, kYes, cli_arg('R', "routing_engine"), "Comma-separated routing engines tried in order; add no_fallback to stop there; empty = minhop") \
  X(kRouting, avoid_throttled_links, bool, false, flag(), kRestart, kYes, no_cli(), "sssp, dfsssp and nue route around switch-to-switch links running below their best speed/width, unless the only way") \
  X(kRouting, connect_roots, bool, false, flag(), kHup, kYes, cli_set('z', "connect_roots"), "Keep roots connected in updn/ftree routing") \
  X(kRouting, use_ucast_cache, bool, false, flag(), kRestart, kYes, cli_set('A', "ucast_cache"), "Reuse unicast routes when the topology change allows it") \
  X(kRouting, lid_matrix_dump_file, std::string, "", text(), kRestart, kYes, cli_arg('M', "lid_matrix_file"), "Min-hop tables to load (file engine)") \
  X(kRouting, lfts_file, std::string, "", text(), kRestart, kYes, cli_arg('U', "lfts_file"), "Forwarding tables to load (file engine)") \
  X(kRouting, root_guid_file, std::string, "", text(), kRestart, kYes, cli_arg('a', "root_guid_file"), "Root switch GUIDs (updn, ftree)") \
  X(kRouting, cn_guid_file, std::string, "", text(), kRestart, kYes, cli_arg('u', "cn_guid_file"), "Compute node port GUIDs (ftree, sssp, dfsssp)") \
  X(kRouting, io_guid_file, std::string, "", text(), kRestart, kYes, cli_arg('G', "io_guid_file"), "I/O node port GUIDs (ftree, sssp, dfsssp)") \
  X(kRouting, quasi_ftree_indexing, bool, false, flag(), kHup, kYes, no_cli(), "ftree: index switches from the roots (quasi fat trees)") \
  X(kRouting, max_reverse_hops, std::uint16_t, 0, dec(), kRestart, kYes, cli_arg('H', "max_reverse_hops"), "ftree: reverse hops allowed for I/O nodes") \
  X(kRouting, ids_guid_file, std::string, "", text(), kRestart, kYes, cli_arg('m', "ids_guid_file"), "updn: GUID-to-id map used instead of GUIDs") \
  X(kRouting, guid_routing_order_file, std::string, "", text(), kRestart, kYes, cli_arg('X', "guid_routing_order_file"), "Order in which port GUIDs are routed (minhop, updn)") \
  X(kRouting, do_mesh_analysis, bool, false, flag(), kHup, kYes, cli_set(0, "do_mesh_analysis"), "lash: route a mesh or torus dimension by dimension (dimensions found from the links)") \
  X(kRouting, lash_start_vl, std::uint8_t, 0, dec(0, 15), kHup, kYes, cli_arg(0, "lash_start_vl"), "lash: the first SL (= VL) it hands out; its layers use SLs from here up to the VLs every port runs") \
  X(kRouting, nue_max_num_vls, std::uint8_t, 1, dec(), kHup, kYes, cli_arg(0, "nue_max_num_vls"), "nue: virtual layers (SLs = VLs) it may use, at most the VLs every port runs; 0 = all of those; 1 = no SLs needed") \
  X(kRouting, nue_include_switches, bool, false, flag(), kRestart, kYes, no_cli(), "nue: keep paths from and to switches free of credit loops too; ibsm always does (TRUE), FALSE changes nothing") \
  X(kRouting, port_shifting, bool, false, flag(), kHup, kYes, cli_set(0, "port-shifting"), "Shift the starting port per destination when balancing") \
  X(kRouting, scatter_ports, std::uint32_t, 0, dec(), kHup, kYes, cli_arg(0, "scatter-ports"), "Random port choice with this seed; 0 = round robin") \
  X(kRouting, guid_routing_order_no_scatter, bool, false, flag(), kRestart, kYes, cli_set(0, "guid_routing_order_no_scatter"), "Do not scatter ports of GUIDs in the routing order file") \
  X(kRouting, sa_db_file, std::string, "", text(), kRestart, kYes, cli_arg('S', "sadb_file"), "SA database dump to load at start-up") \
  X(kRouting, sa_db_dump, bool, false, flag(), kHup, kYes, no_cli(), "Dump the SA database after every light sweep") \
  X(kRouting, torus_config, std::string, "/etc/opensm/torus-2QoS.conf", text(), kHup, kYes, cli_arg(0, "torus_config"), "torus-2QoS configuration file") \
  /* ---- handover / multiple SMs ---- */ \
  X(kHandover, sm_priority, std::uint8_t, 0, dec(0, 15), kHup, kYes, cli_arg('p', "priority"), "SM priority for master election (0 lowest - 15 highest)") \
  X(kHandover, ignore_other_sm, bool, false, flag(), kHup, kYes, no_cli(), "Ignore other SMs on the subnet") \
  X(kHandover, sminfo_polling_timeout, std::uint32_t, 10000, dec(), kHup, kYes, no_cli(), "Milliseconds between polls of the master SM by a standby (not set: ibsm polls every 200 ms)") \
  X(kHandover, polling_retry_number, std::uint32_t, 4, dec(), kHup, kYes, no_cli(), "Failed polls after which the master SM is considered gone (not set: ibsm uses 2)") \
  X(kHandover, honor_guid2lid_file, bool, false, flag(), kHup, kYes, cli_set('x', "honor_guid2lid"), "Use the guid2lid cache when leaving STANDBY") \
  /* ---- timing and threading ---- */ \
  X(kTiming, max_wire_smps, std::uint32_t, 4, dec(), kHup, kYes, cli_arg('n', "maxsmps"), "Most SMPs in flight at once (0 = no limit); ibsm adapts its window below it, and when not given at all from 4 up to 128") \
  X(kTiming, max_wire_smps2, std::uint32_t, 4, dec(), kHup, kYes, no_cli(), "SMPs in flight including timed-out ones; <= max_wire_smps disables") \
  X(kTiming, max_smps_timeout, std::uint32_t, 600000, dec(), kHup, kYes, no_cli(), "Microseconds to wait before sending SMPs above max_wire_smps") \
  X(kTiming, transaction_timeout, std::uint32_t, 200, dec(), kRestart, kYes, cli_arg('t', "timeout"), "Milliseconds before a MAD transaction is retried") \
  X(kTiming, transaction_retries, std::uint32_t, 3, dec(), kRestart, kYes, cli_arg(0, "retries"), "Retries of a MAD transaction before it fails") \
  X(kTiming, long_transaction_timeout, std::uint32_t, 500, dec(), kRestart, kYes, no_cli(), "Milliseconds an optimized SL2VL Set (use_optimized_slvl) waits for its answer; below transaction_timeout it is raised to it (a warning), as OpenSM") \
  X(kTiming, max_msg_fifo_timeout, std::uint32_t, 10000, dec(), kHup, kYes, no_cli(), "Milliseconds an SA request may queue before it is dropped (ibsm keeps no SA queue: each request is answered in the event-loop turn that reads it, also during sweeps, so none waits this long)") \
  X(kTiming, single_thread, bool, false, flag(), kRestart, kYes, no_cli(), "Serve SA queries from a single thread (ibsm always does: one event loop serves SMPs and the SA, so either value behaves the same)") \
  /* ---- misc ---- */ \
  X(kMisc, daemon, bool, false, flag(), kRestart, kYes, cli_set('B', "daemon"), "Run in the background") \
  X(kMisc, sm_inactive, bool, false, flag(), kHup, kYes, cli_set('I', "inactive"), "Start in NOTACTIVE state") \
  X(kMisc, babbling_port_policy, bool, false, flag(), kHup, kYes, no_cli(), "Disable a port after 250 port-error traps (129-131) in a row") \
  X(kMisc, drop_event_subscriptions, bool, false, flag(), kHup, kYes, no_cli(), "Drop InformInfo/ServiceRecord subscriptions of removed ports") \
  X(kMisc, ipoib_mcgroup_creation_validation, bool, true, flag(), kHup, kYes, no_cli(), "Check new IPoIB groups against the broadcast group (RFC 4391)") \
  X(kMisc, mcgroup_join_validation, bool, true, flag(), kHup, kYes, no_cli(), "Check join parameters against an existing multicast group") \
  X(kMisc, use_original_extended_sa_rates_only, bool, false, flag(), kHup, kYes, no_cli(), "Report SA rates only up to 300 Gb/s (old clients)") \
  X(kMisc, use_optimized_slvl, bool, false, flag(), kHup, kYes, no_cli(), "With qos: one SLtoVLMappingTable Set for all input ports of an output port on switches advertising OptimizedSLtoVLMappingProgramming") \
  X(kMisc, fsync_high_avail_files, bool, true, flag(), kHup, kYes, no_cli(), "fsync the guid2lid/guid2mkey/neighbors cache files") \
  /* ---- performance manager ---- */ \
  X(kPerfmgr, perfmgr, bool, false, flag(), kRestart, kYes, cli_set(0, "perfmgr"), "Enable the performance manager") \
  X(kPerfmgr, perfmgr_redir, bool, true, flag(), kRestart, kYes, no_cli(), "Follow PerfMgt redirection") \
  X(kPerfmgr, perfmgr_sweep_time_s, std::uint16_t, 180, dec(), kRestart, kYes, cli_arg(0, "perfmgr_sweep_time_s"), "Seconds between counter sweeps") \
  X(kPerfmgr, perfmgr_max_outstanding_queries, std::uint32_t, 500, dec(), kRestart, kYes, no_cli(), "PerfMgt queries in flight") \
  X(kPerfmgr, perfmgr_ignore_cas, bool, false, flag(), kRestart, kYes, no_cli(), "Do not query CAs") \
  X(kPerfmgr, perfmgr_rm_nodes, bool, true, flag(), kRestart, kYes, no_cli(), "Forget counters of nodes that left the fabric") \
  X(kPerfmgr, perfmgr_log_errors, bool, true, flag(), kRestart, kYes, no_cli(), "Log error counters") \
  X(kPerfmgr, perfmgr_query_cpi, bool, true, flag(), kRestart, kYes, no_cli(), "Query ClassPortInfo for extended counter support") \
  X(kPerfmgr, perfmgr_xmit_wait_log, bool, false, flag(), kRestart, kYes, no_cli(), "Log PortXmitWait above the threshold") \
  X(kPerfmgr, perfmgr_xmit_wait_threshold, std::uint32_t, 65535, dec(), kRestart, kYes, no_cli(), "PortXmitWait threshold for logging") \
  /* ---- event db, plugins, node names ---- */ \
  X(kEvents, event_db_dump_file, std::string, "", text(), kRestart, kYes, no_cli(), "File the PerfMgr counter database is dumped to (OpenSM's format; console perfmgr dump_counters, and in machine format after every PerfMgr sweep)") \
  X(kEvents, event_plugin_name, std::string, "", text(), kRestart, kYes, no_cli(), "OpenSM event plugins: refused when set (they are built against OpenSM's internals); use the event stream (ibsm-ctl events, events_file) or the metrics endpoint") \
  X(kEvents, event_plugin_options, std::string, "", text(), kRestart, kYes, no_cli(), "Options of OpenSM event plugins: refused when set, as event_plugin_name") \
  X(kEvents, node_name_map_name, std::string, "", text(), kRestart, kYes, no_cli(), "Node name map (infiniband-diags' ib-node-name-map format: `GUID \"name\"` lines); names nodes in logs and dumps; unset = /etc/opensm/ib-node-name-map if it exists; the file is re-read on SIGHUP") \
  /* ---- logging and debug ---- */ \
  X(kLogging, log_flags, std::uint8_t, 0x03, hex(2), kHup, kYes, no_cli(), "Log flags: 0x01 error, 0x02 info, 0x04 verbose, 0x08 debug, 0x10 funcs, 0x20 frames, 0x40 routing, 0x80 sys") \
  X(kLogging, force_log_flush, bool, false, flag(), kHup, kYes, no_cli(), "Flush the log after every message") \
  X(kLogging, log_file, std::string, "/var/log/opensm.log", text(), kRestart, kYes, cli_arg('f', "log_file"), "Log file, or stdout") \
  X(kLogging, log_max_size, std::uint64_t, 0, dec(), kHup, kYes, cli_arg('L', "log_limit"), "Log size limit in MB; when exceeded the log restarts empty; 0 = no limit") \
  X(kLogging, accum_log_file, bool, true, flag(), kHup, kYes, cli_clear('e', "erase_log_file"), "Append to the log across runs (FALSE: truncate at start)") \
  X(kLogging, per_module_logging_file, std::string, "/etc/opensm/per-module-logging.conf", text(), kRestart, kYes, no_cli(), "Per-module log flags: `module flags` lines (OpenSM module names such as osm_sa.c, or ibsm's); a module logs with log_flags OR its flags; no file = none; the file is re-read on SIGHUP") \
  X(kLogging, dump_files_dir, std::string, "/var/log/", text(), kRestart, kYes, cli_arg(0, "dump_files_dir"), "Directory for dump files") \
  X(kLogging, enable_quirks, bool, false, flag(), kHup, kYes, no_cli(), "Hardware quirks: paths of Tavor HCAs (DeviceID 23108) limited to 1K MTU, as OpenSM") \
  X(kLogging, no_clients_rereg, bool, false, flag(), kHup, kYes, no_cli(), "Never ask clients to re-register") \
  X(kLogging, disable_multicast, bool, false, flag(), kHup, kYes, no_cli(), "No multicast support at all") \
  X(kLogging, exit_on_fatal, bool, true, flag(), kHup, kYes, cli_clear('y', "stay_on_fatal"), "Exit when a sweep finds two devices with one GUID (FALSE: leave the duplicate out and keep running)") \
  X(kLogging, console, std::string, "off", choice("off", "local", "loopback", "socket"), kRestart, kYes, cli_arg('q', "console"), "OpenSM's console: off, local (the terminal, foreground only) or loopback (127.0.0.1:console_port); socket is refused (no authentication: use ibsm-ctl)") \
  X(kLogging, console_port, std::uint16_t, 10000, dec(1, 65535), kRestart, kYes, cli_arg('C', "console-port"), "TCP port of the loopback console") \
  /* ---- QoS ---- */ \
  X(kQos, qos, bool, false, flag(), kHup, kYes, cli_set('Q', "qos"), "Program VLArbitration tables, SL2VL tables and PortInfo VLHighLimit from the qos_* keys") \
  X(kQos, qos_policy_file, std::string, "/etc/opensm/qos-policy.conf", text(), kRestart, kYes, cli_arg('Y', "qos_policy_file"), "QoS policy file (OpenSM grammar, docs/qos-policy.md); read with qos on, re-read on SIGHUP") \
  X(kQos, suppress_sl2vl_mad_status_errors, bool, false, flag(), kHup, kYes, no_cli(), "Log an SL2VL Set refused with a MAD status at debug level only") \
  X(kQos, qos_max_vls, std::uint32_t, 0, dec(0, 15), kHup, kYes, no_cli(), "QoS default (all port classes): data VLs at most (caps OperationalVLs); 0 = unset") \
  X(kQos, qos_high_limit, std::int32_t, -1, dec(-1, 255), kHup, kYes, no_cli(), "QoS default (all port classes): PortInfo.VLHighLimit; -1 = unset") \
  X(kQos, qos_vlarb_high, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS default (all port classes): high-priority VLArbitration VL:weight list; unset = OpenSM's 0:4,1:0,...,14:0") \
  X(kQos, qos_vlarb_low, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS default (all port classes): low-priority VLArbitration VL:weight list; unset = OpenSM's 0:0,1:4,...,14:4") \
  X(kQos, qos_sl2vl, std::string, "", raw(check_sl2vl_list, diagnose_sl2vl_list), kHup, kYes, no_cli(), "QoS default (all port classes): SLtoVLMappingTable, 16 VLs by SL; unset = OpenSM's 0,1,...,14,7") \
  X(kQos, qos_ca_max_vls, std::uint32_t, 0, dec(0, 15), kHup, kYes, no_cli(), "QoS CA ports: data VLs at most (caps OperationalVLs); 0 = unset, qos_max_vls applies, else 15") \
  X(kQos, qos_ca_high_limit, std::int32_t, -1, dec(-1, 255), kHup, kYes, no_cli(), "QoS CA ports: PortInfo.VLHighLimit; -1 = unset, qos_high_limit applies, else 0") \
  X(kQos, qos_ca_vlarb_high, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS CA ports: high-priority VLArbitration VL:weight list; unset: qos_vlarb_high, else OpenSM's") \
  X(kQos, qos_ca_vlarb_low, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS CA ports: low-priority VLArbitration VL:weight list; unset: qos_vlarb_low, else OpenSM's") \
  X(kQos, qos_ca_sl2vl, std::string, "", raw(check_sl2vl_list, diagnose_sl2vl_list), kHup, kYes, no_cli(), "QoS CA ports: SLtoVLMappingTable, 16 VLs by SL; unset: qos_sl2vl, else OpenSM's") \
  X(kQos, qos_sw0_max_vls, std::uint32_t, 0, dec(0, 15), kHup, kYes, no_cli(), "QoS switch port 0: data VLs at most (caps OperationalVLs); 0 = unset, qos_max_vls applies, else 15") \
  X(kQos, qos_sw0_high_limit, std::int32_t, -1, dec(-1, 255), kHup, kYes, no_cli(), "QoS switch port 0: PortInfo.VLHighLimit; -1 = unset, qos_high_limit applies, else 0") \
  X(kQos, qos_sw0_vlarb_high, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS switch port 0: high-priority VLArbitration VL:weight list; unset: qos_vlarb_high, else OpenSM's") \
  X(kQos, qos_sw0_vlarb_low, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS switch port 0: low-priority VLArbitration VL:weight list; unset: qos_vlarb_low, else OpenSM's") \
  X(kQos, qos_sw0_sl2vl, std::string, "", raw(check_sl2vl_list, diagnose_sl2vl_list), kHup, kYes, no_cli(), "QoS switch port 0: SLtoVLMappingTable, 16 VLs by SL; unset: qos_sl2vl, else OpenSM's") \
  X(kQos, qos_swe_max_vls, std::uint32_t, 0, dec(0, 15), kHup, kYes, no_cli(), "QoS switch external ports: data VLs at most (caps OperationalVLs); 0 = unset, qos_max_vls applies, else 15") \
  X(kQos, qos_swe_high_limit, std::int32_t, -1, dec(-1, 255), kHup, kYes, no_cli(), "QoS switch external ports: PortInfo.VLHighLimit; -1 = unset, qos_high_limit applies, else 0") \
  X(kQos, qos_swe_vlarb_high, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS switch external ports: high-priority VLArbitration VL:weight list; unset: qos_vlarb_high, else OpenSM's") \
  X(kQos, qos_swe_vlarb_low, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS switch external ports: low-priority VLArbitration VL:weight list; unset: qos_vlarb_low, else OpenSM's") \
  X(kQos, qos_swe_sl2vl, std::string, "", raw(check_sl2vl_list, diagnose_sl2vl_list), kHup, kYes, no_cli(), "QoS switch external ports: SLtoVLMappingTable, 16 VLs by SL; unset: qos_sl2vl, else OpenSM's") \
  X(kQos, qos_rtr_max_vls, std::uint32_t, 0, dec(0, 15), kHup, kYes, no_cli(), "QoS router ports: data VLs at most (caps OperationalVLs); 0 = unset, qos_max_vls applies, else 15") \
  X(kQos, qos_rtr_high_limit, std::int32_t, -1, dec(-1, 255), kHup, kYes, no_cli(), "QoS router ports: PortInfo.VLHighLimit; -1 = unset, qos_high_limit applies, else 0") \
  X(kQos, qos_rtr_vlarb_high, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS router ports: high-priority VLArbitration VL:weight list; unset: qos_vlarb_high, else OpenSM's") \
  X(kQos, qos_rtr_vlarb_low, std::string, "", raw(check_vlarb_list, diagnose_vlarb_list), kHup, kYes, no_cli(), "QoS router ports: low-priority VLArbitration VL:weight list; unset: qos_vlarb_low, else OpenSM's") \
  X(kQos, qos_rtr_sl2vl, std::string, "", raw(check_sl2vl_list, diagnose_sl2vl_list), kHup, kYes, no_cli(), "QoS router ports: SLtoVLMappingTable, 16 VLs by SL; unset: qos_sl2vl, else OpenSM's") \
  /* ---- congestion control (experimental in OpenSM) ---- */ \
  X(kCongestion, congestion_control, bool, false, flag(), kHup, kYes, cli_set(0, "congestion_control"), "Program the congestion control settings below into switches and CA ports (Congestion Control class 0x21, after SUBNET UP; sm/cc/)") \
  X(kCongestion, cc_key, std::uint64_t, 0, hex(16), kRestart, kYes, cli_arg(0, "cc_key"), "CC_Key carried by congestion control MADs (the key the nodes hold; not programmed)") \
  X(kCongestion, cc_max_outstanding_mads, std::uint32_t, 500, dec(), kRestart, kYes, no_cli(), "Congestion control MADs awaiting their answers at once (0 acts as 1, as in OpenSM)") \
  X(kCongestion, cc_sw_cong_setting_control_map, std::uint8_t, 0, hex(0, 0, 0x1f), kHup, kYes, no_cli(), "SwitchCongestionSetting Control_Map: which settings are valid (bit 0 victim mask, 1 credit mask, 2 threshold and packet size, 3 credit starvation threshold and return delay, 4 marking rate)") \
  X(kCongestion, cc_sw_cong_setting_victim_mask, std::string, "0x0000000000000000000000000000000000000000000000000000000000000000", raw(check_hex_mask256, diagnose_hex_mask256), kHup, kYes, no_cli(), "SwitchCongestionSetting Victim_Mask: 256-bit mask, bit n = port n marks packets as a victim of congestion") \
  X(kCongestion, cc_sw_cong_setting_credit_mask, std::string, "0x0000000000000000000000000000000000000000000000000000000000000000", raw(check_hex_mask256, diagnose_hex_mask256), kHup, kYes, no_cli(), "SwitchCongestionSetting Credit_Mask: 256-bit mask, bit n = port n applies credit starvation") \
  X(kCongestion, cc_sw_cong_setting_threshold, std::uint8_t, 0, hex(2, 0, 15), kHup, kYes, no_cli(), "SwitchCongestionSetting Threshold: marking aggressiveness, 0 none - 15 aggressive") \
  X(kCongestion, cc_sw_cong_setting_packet_size, std::uint8_t, 0, dec(), kHup, kYes, no_cli(), "SwitchCongestionSetting Packet_Size: packets smaller than this (credits) are not marked") \
  X(kCongestion, cc_sw_cong_setting_credit_starvation_threshold, std::uint8_t, 0, hex(2, 0, 15), kHup, kYes, no_cli(), "SwitchCongestionSetting CS_Threshold: credit starvation aggressiveness, 0 none - 15 aggressive") \
  X(kCongestion, cc_sw_cong_setting_credit_starvation_return_delay, std::string, "0:0", raw(check_shift_mult, diagnose_shift_mult), kHup, kYes, no_cli(), "SwitchCongestionSetting CS_ReturnDelay, shift:multiplier (shift 0-3, multiplier 0-16383)") \
  X(kCongestion, cc_sw_cong_setting_marking_rate, std::uint16_t, 0, dec(), kHup, kYes, no_cli(), "SwitchCongestionSetting Marking_Rate: mean packets between markings") \
  X(kCongestion, cc_ca_cong_setting_port_control, std::uint16_t, 0, hex(4), kHup, kYes, no_cli(), "CACongestionSetting Port_Control: bit 0 = 0 QP based, 1 SL/port based congestion control") \
  X(kCongestion, cc_ca_cong_setting_control_map, std::uint16_t, 0, hex(4), kHup, kYes, no_cli(), "CACongestionSetting Control_Map: SLs whose entry is valid (bit n = SL n)") \
  X(kCongestion, cc_ca_cong_setting_ccti_timer, std::string, "0 0", raw_lines(check_sl_values16, diagnose_sl_values16, merge_sl_values16), kHup, kYes, no_cli(), "CACongestionSetting CCTI_Timer: <SL> <value 0-65535>, one line per SL") \
  X(kCongestion, cc_ca_cong_setting_ccti_increase, std::string, "0 0", raw_lines(check_sl_values8, diagnose_sl_values8, merge_sl_values8), kHup, kYes, no_cli(), "CACongestionSetting CCTI_Increase: <SL> <value 0-255>, one line per SL") \
  X(kCongestion, cc_ca_cong_setting_trigger_threshold, std::string, "0 0", raw_lines(check_sl_values8, diagnose_sl_values8, merge_sl_values8), kHup, kYes, no_cli(), "CACongestionSetting Trigger_Threshold: <SL> <value 0-255>, one line per SL") \
  X(kCongestion, cc_ca_cong_setting_ccti_min, std::string, "0 0", raw_lines(check_sl_values8, diagnose_sl_values8, merge_sl_values8), kHup, kYes, no_cli(), "CACongestionSetting CCTI_Min: <SL> <value 0-255>, one line per SL") \
  X(kCongestion, cc_cct, std::string, "", raw(check_cct_list, diagnose_cct_list), kHup, kYes, no_cli(), "CongestionControlTable of CA ports: shift:multiplier,... at most 128 entries; (null) = CCTI_Limit 0") \
  /* ---- the three keys OpenSM writes last ---- */ \
  X(kRouting, prefix_routes_file, std::string, "/etc/opensm/prefix-routes.conf", text(), kRestart, kYes, cli_arg(0, "prefix_routes_file"), "Routers for PathRecords to GIDs outside the subnet prefix: \"<prefix> <router port GUID>\" per line, * for any (sa/prefix_routes.hpp); re-read on SIGHUP; no file: such PathRecords are answered empty, as in OpenSM") \
  X(kMisc, consolidate_ipv6_snm_req, bool, false, flag(), kHup, kYes, cli_set(0, "consolidate_ipv6_snm_req"), "One MLID for all IPv6 solicited-node multicast groups") \
  X(kLogging, log_prefix, std::string, "", text(), kHup, kYes, cli_arg(0, "log_prefix"), "Prefix of syslog messages") \
  /* ---- ibsm extensions: ibsm's own keys with ibsm's defaults, after all OpenSM keys ---- */ \
  X(kIbsm, master_sm_priority, std::uint8_t, 0, dec(0, 15), kHup, kYes, cli_arg(0, "master_sm_priority"), "Priority a MASTER advertises in SMInfo (0 = sm_priority); above sm_priority it keeps a recovered higher-priority SM from taking the fabric back (no automatic fail-back)") \
  X(kIbsm, sa_max_service_records_per_port, std::uint32_t, 1000, dec(1, 100000000), kHup, kYes, no_cli(), "ServiceRecords one port may hold registered with the SA (a Set with the RID of a record already held is an update, not a new one); one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_service_records, std::uint32_t, 10000, dec(1, 100000000), kHup, kYes, no_cli(), "ServiceRecords the SA holds for all ports together; one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_inform_info_per_port, std::uint32_t, 100, dec(1, 100000000), kHup, kYes, no_cli(), "InformInfo (event) subscriptions one port may hold; one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_inform_info, std::uint32_t, 10000, dec(1, 100000000), kHup, kYes, no_cli(), "InformInfo subscriptions the SA holds for all ports together; one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_mcast_memberships_per_port, std::uint32_t, 1000, dec(1, 100000000), kHup, kYes, no_cli(), "Multicast memberships one port's MCMemberRecord joins may make (its proxy joins included); one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_mcast_groups_per_port, std::uint32_t, 256, dec(1, 100000000), kHup, kYes, no_cli(), "Multicast groups one port's joins may have created that still exist; one more create is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, sa_max_mcast_memberships, std::uint32_t, 1000000, dec(1, 100000000), kHup, kYes, no_cli(), "Multicast memberships made by joins that the SA holds for all ports together; one more is refused with ERR_NO_RESOURCES and IBSM-7007") \
  X(kIbsm, ctl_socket, std::string, "", text(), kRestart, kYes, cli_arg(0, "ctl-socket"), "Unix socket ibsm-ctl talks to; empty = /run/ibsm/<instance>.sock (instance: the --guid as 0x..., else default); none = no control socket") \
  X(kIbsm, ctl_group, std::string, "", text(), kRestart, kYes, no_cli(), "Group whose members may run ibsm-ctl's read-only commands (commands that change the SM stay root only); empty = root only") \
  X(kIbsm, ctl_idle_timeout, std::uint32_t, 30, dec(1, 86400), kRestart, kYes, cli_arg(0, "ctl-idle-timeout"), "Seconds a control connection (ibsm-ctl, the loopback console) may stay without sending a complete line before it is closed with IBSM-8006 (connections waiting for an answer, being sent one, following events or in status loop are exempt), and may leave an answer waiting without taking any of it before it is cut off (IBSM-8021)") \
  X(kIbsm, ctl_max_connections, std::uint32_t, 256, dec(1, 16384), kRestart, kYes, cli_arg(0, "ctl-max-connections"), "Control connections (ibsm-ctl's socket and the loopback console together) served at once; one more is refused with IBSM-8007 and closed") \
  X(kIbsm, console_token_file, std::string, "", text(), kRestart, kYes, cli_arg(0, "console-token-file"), "File ibsm writes the loopback console's token to at start-up (mode 0600, ibsm's user; removed at stop); a console client that sends auth TOKEN may change the SM, the others only read (docs/ctl.md); empty = the control socket's path with .console-token for .sock (/run/ibsm/<instance>.console-token)") \
  X(kIbsm, events_file, std::string, "", text(), kRestart, kYes, cli_arg(0, "events-file"), "File the event stream is appended to, one JSON object per line (docs/ctl.md); empty = none") \
  X(kIbsm, events_file_max_mb, std::uint32_t, 64, dec(1, 1048576), kRestart, kYes, no_cli(), "Size in MiB at which the events file is rotated (FILE -> FILE.1)") \
  X(kIbsm, events_file_keep, std::uint8_t, 5, dec(0, 99), kRestart, kYes, no_cli(), "Rotated events files kept (FILE.1 ... FILE.N); 0 = none, the file starts over") \
  X(kIbsm, metrics_listen, std::string, "", text(), kRestart, kYes, cli_arg(0, "metrics-listen"), "ADDR:PORT the Prometheus endpoint (/metrics, read-only HTTP) listens on, e.g. 127.0.0.1:9683 or [::1]:9683; empty = no endpoint (docs/metrics.md)") \
  X(kIbsm, hm_unhealthy_ports_checks, bool, true, flag(), kHup, kYes, no_cli(), "Fabric health: judge every port by the hm_* conditions and act on it by the hm_*_action keys (NVIDIA's SM key): ignore; report (log, event, dump file); isolate (routes leave the link, which stays Active; only a link between two switches whose loss cuts no switch off is isolated, any other is reported instead); no_discover (the sweep does not probe past the port, and routes leave its link); disable (PortPhysicalState Disabled on the end nearer the SM; clearing Sets it back to Polling). Nothing is done to the SM's own port or the far end of its link. FALSE = no port is ever judged unhealthy, the policy file included") \
  X(kIbsm, hm_ports_health_policy_file, std::string, "", text(), kHup, kYes, no_cli(), "Fabric health policy file: `GUID PORT HEALTHY|UNHEALTHY` per line (node or port GUID; # comments), as NVIDIA's SM; UNHEALTHY = the manual condition, HEALTHY clears the port; re-read on SIGHUP, a file with an error is refused (file:line) and the last good policy stays; empty = none") \
  X(kIbsm, hm_num_reboots, std::uint32_t, 10, dec(1, 1000000), kHup, kYes, no_cli(), "Fabric health, reboot condition: reboots of a node within hm_reboots_period_secs that make its port unhealthy (NVIDIA's SM default)") \
  X(kIbsm, hm_reboots_period_secs, std::uint32_t, 900, dec(1, 604800), kHup, kYes, no_cli(), "Fabric health, reboot condition: the period in seconds hm_num_reboots is counted over") \
  X(kIbsm, hm_num_flapping_sweeps, std::uint8_t, 5, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, flapping condition: sweeps, of the last hm_num_flapping_sweeps_window, in which a link went down and up (seen Init or Down after Active) that make its port unhealthy") \
  X(kIbsm, hm_num_flapping_sweeps_window, std::uint8_t, 30, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, flapping condition: the sweeps counted over (at most 31, as NVIDIA's SM)") \
  X(kIbsm, hm_num_no_resp_sweeps, std::uint8_t, 5, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, unresponsive condition: sweeps, of the last hm_num_no_resp_sweeps_window, in which a port did not answer an SMP after all retries") \
  X(kIbsm, hm_num_no_resp_sweeps_window, std::uint8_t, 7, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, unresponsive condition: the sweeps counted over (at most 31)") \
  X(kIbsm, hm_num_set_err_sweeps, std::uint8_t, 5, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, set error condition: sweeps, of the last hm_num_set_err_sweeps_window, in which a Set to a port failed (an error status or no answer)") \
  X(kIbsm, hm_num_set_err_sweeps_window, std::uint8_t, 7, dec(1, 31), kHup, kYes, no_cli(), "Fabric health, set error condition: the sweeps counted over (at most 31)") \
  X(kIbsm, hm_num_traps, std::uint32_t, 60, dec(1, 1000000), kHup, kYes, no_cli(), "Fabric health, noisy condition: port-error traps (129-131) about one port within hm_num_traps_period_secs that make it unhealthy (the trap filter's babbling_port_policy acts apart from this)") \
  X(kIbsm, hm_num_traps_period_secs, std::uint32_t, 90, dec(1, 86400), kHup, kYes, no_cli(), "Fabric health, noisy condition: the period in seconds hm_num_traps is counted over") \
  X(kIbsm, hm_num_illegal, std::uint32_t, 1, dec(1, 1000000), kHup, kYes, no_cli(), "Fabric health, illegal condition: answers with impossible values a port may give before it is unhealthy (counted until it is cleared)") \
  X(kIbsm, hm_ca_reboot_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the reboot condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_unresponsive_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the unresponsive condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_noisy_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the noisy condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_seterr_action, std::string, "ignore", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the set error condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_flapping_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the flapping condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_illegal_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the illegal condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_manual_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the manual (policy file) condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_ca_error_rate_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a CA or router port in the error rate (hm_*_per_hour) condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_reboot_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the reboot condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_unresponsive_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the unresponsive condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_noisy_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the noisy condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_seterr_action, std::string, "ignore", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the set error condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_flapping_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the flapping condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_illegal_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the illegal condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_manual_action, std::string, "no_discover", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the manual (policy file) condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_sw_error_rate_action, std::string, "report", choice("ignore", "report", "isolate", "no_discover", "disable"), kHup, kYes, no_cli(), "Fabric health: action on a switch port in the error rate (hm_*_per_hour) condition: ignore, report, isolate, no_discover or disable") \
  X(kIbsm, hm_max_isolated_ports, std::uint32_t, 10, dec(0, 1000000), kHup, kYes, no_cli(), "Fabric health: ports isolated at once at most (UFM's link isolation plugin's MAX_NUM_ISOLATE); a port past it is reported instead; 0 = none is isolated") \
  X(kIbsm, hm_symbol_errors_per_hour, std::uint32_t, 371, dec(), kHup, kYes, no_cli(), "Fabric health, error rate condition: SymbolErrorCounter increase within an hour that makes a port unhealthy; 0 = not checked. Default: IBTA's bit error rate limit 1e-12 at 4x EDR's line rate (4 x 25.78125 Gb/s) allows 371 errors an hour") \
  X(kIbsm, hm_link_error_recovery_per_hour, std::uint32_t, 10, dec(), kHup, kYes, no_cli(), "Fabric health, error rate condition: LinkErrorRecoveryCounter increase within an hour that makes a port unhealthy; 0 = not checked. Default: infiniband-diags' error_thresholds (LinkErrorRecoveryCounter=10), taken per hour") \
  X(kIbsm, hm_link_downed_per_hour, std::uint32_t, 10, dec(), kHup, kYes, no_cli(), "Fabric health, error rate condition: LinkDownedCounter increase within an hour that makes a port unhealthy; 0 = not checked. Default: infiniband-diags' threshold for the link error counters (10), taken per hour") \
  X(kIbsm, hm_port_rcv_errors_per_hour, std::uint32_t, 371, dec(), kHup, kYes, no_cli(), "Fabric health, error rate condition: PortRcvErrors increase within an hour that makes a port unhealthy; 0 = not checked. Default: as hm_symbol_errors_per_hour, since at a bit error rate of 1e-12 each bit error costs at most one packet") \
  X(kIbsm, topo_config_file, std::string, "", text(), kHup, kYes, no_cli(), "Intended topology the discovered cabling is checked against at every heavy sweep: NVIDIA's CSV (SrcGUID,SrcPort,DstGUID,DstPort,DeviceType,LinkState) or ibnetdiscover output; empty = none (degraded links are still reported)") \
  X(kIbsm, topo_config_enabled, bool, false, flag(), kHup, kYes, no_cli(), "Enforce topo_config_file: links between two switches that the cabling check finds as wrong_port, wrong_node or extra_link carry no route (NVIDIA's topoconfig; a reroute, not a sweep); width and speed mismatches are only reported, and the SM's own link and a link whose loss cuts a switch off stay routed; FALSE = report only") \
  X(kIbsm, slurm_topology_file, std::string, "", text(), kHup, kYes, no_cli(), "Slurm topology.conf (topology/tree) rewritten atomically after each heavy sweep that changes it: hosts under their leaf switches (rail 0), one top; slurmctld reads it on scontrol reconfigure (docs/integrations.md); empty = none")
// clang-format on
