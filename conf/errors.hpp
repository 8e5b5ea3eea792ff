// Operator-visible errors and warnings of conf/ (range 5xxx).
#pragma once

#include "common/error.hpp"

namespace ibsm::conf {

inline constexpr ErrorId kUnknownKey{5001};
inline constexpr ErrorId kBadValue{5002};
inline constexpr ErrorId kFileUnreadable{5003};
inline constexpr ErrorId kUnimplementedOptions{5004};
inline constexpr ErrorId kUnimplementedFlag{5005};
inline constexpr ErrorId kBadCommandLine{5006};
inline constexpr ErrorId kTomlSyntax{5007};
inline constexpr ErrorId kTomlUnknownKey{5008};
inline constexpr ErrorId kFileUnwritable{5009};
inline constexpr ErrorId kLineTooLong{5010};
inline constexpr ErrorId kLogFileUnopenable{5011};
inline constexpr ErrorId kNonCanonicalBoolean{5012};
inline constexpr ErrorId kMissingValue{5013};
inline constexpr ErrorId kPerModuleLogSyntax{5020};
inline constexpr ErrorId kPerModuleLogUnknownModule{5021};
inline constexpr ErrorId kPerModuleLogUnreadable{5022};
inline constexpr ErrorId kPidfileUnwritable{5023};
inline constexpr ErrorId kOpensmKeyInIbsmLine{5024};
inline constexpr ErrorId kDebugModeIgnored{5025};
inline constexpr ErrorId kConsoleSocketRefused{5030};
inline constexpr ErrorId kEventPluginRefused{5031};

inline constexpr ErrorInfo kConfErrors[] = {
    {kUnknownKey, "Unknown configuration key",
     "A line of opensm.conf names a key that neither OpenSM 3.3.23 nor ibsm knows. The line is "
     "ignored (a warning), or refused with --strict.",
     "Check the spelling against docs/configuration.md; remove the line if it belongs to another "
     "OpenSM version."},
    {kBadValue, "Invalid option value",
     "A configuration line, TOML key or flag has a value that does not parse or is outside the "
     "allowed range. The message names the place, the key, the value and what is allowed.",
     "Correct the value; `ibsm --help` and docs/configuration.md list each option's range."},
    {kFileUnreadable, "Configuration file unreadable",
     "The file given with -F (or --convert) cannot be opened or read.",
     "Check the path and its permissions."},
    {kUnimplementedOptions, "Options set that ibsm does not implement yet",
     "One or more keys that ibsm accepts for compatibility but does not act on yet are set to a "
     "value other than OpenSM's default. ibsm runs as if they had their default.",
     "Remove the keys or set them back to the default if their behaviour is not needed; "
     "otherwise keep OpenSM for this fabric until ibsm implements them."},
    {kUnimplementedFlag, "Command-line flag not implemented",
     "An OpenSM flag was given whose feature ibsm does not have yet. ibsm refuses to start rather "
     "than silently ignore it.",
     "Remove the flag, or run OpenSM if the feature is required."},
    {kBadCommandLine, "Invalid command line",
     "An unknown flag, a missing flag argument or an ambiguous abbreviation.",
     "See `ibsm --help`."},
    {kTomlSyntax, "Malformed TOML configuration",
     "The TOML configuration file does not parse, or a value has the wrong TOML type. The message "
     "names file:line:column.",
     "Fix the file; `ibsm --convert opensm.conf` shows a valid example."},
    {kTomlUnknownKey, "Unknown key in TOML configuration",
     "A table or key of the TOML configuration is not an ibsm option, or an option sits in the "
     "wrong table.",
     "Use the section and key names listed in docs/configuration.md."},
    {kFileUnwritable, "Cannot write file",
     "The file named by -c/--create-config cannot be written.",
     "Check the directory exists and is writable."},
    {kLineTooLong, "Configuration line too long",
     "A line of opensm.conf exceeds 1023 characters, OpenSM's limit.", "Shorten the line."},
    {kNonCanonicalBoolean, "Boolean not written TRUE or FALSE",
     "A boolean option has a value such as 'true', '1' or 'yes'. As in OpenSM, only the exact "
     "word TRUE means true, so the option is set to FALSE (a warning).",
     "Write TRUE or FALSE."},
    {kMissingValue, "Configuration key without value",
     "A line of opensm.conf has a key but no value. The line is ignored (a warning).",
     "Add the value or remove the line."},
    {kConsoleSocketRefused, "console socket refused",
     "`console socket` (or -q socket) would serve every console command, including those that "
     "change the fabric, on all network interfaces without any authentication. ibsm refuses to "
     "start with it.",
     "Use ibsm-ctl on the Unix socket (ctl_socket; root and ctl_group, checked by the kernel's "
     "SO_PEERCRED), or `console loopback` for 127.0.0.1 only; reach remote SMs with ssh."},
    {kEventPluginRefused, "OpenSM event plugins cannot be loaded",
     "event_plugin_name or event_plugin_options is set. OpenSM's event plugins are shared objects "
     "built against OpenSM's internal structures (osm_opensm_t), which ibsm does not have; "
     "loading one would crash. ibsm refuses to start rather than silently drop what the plugin "
     "did.",
     "Remove the keys and read the same information from ibsm's event stream (`ibsm-ctl events "
     "--follow`, or events_file: one JSON object per line) or from the metrics endpoint."},
    {kLogFileUnopenable, "Cannot open log file",
     "The log file (log_file, -f) cannot be opened or reopened for writing.",
     "Check the path and permissions, or use -f stdout."},
    {kPerModuleLogSyntax, "Per-module logging file line in error",
     "A line of per_module_logging_file names a module but no log level, or a level that is "
     "not a number from 0 to 0xff. The message names file:line. The whole file is refused and "
     "the per-module levels in force stay (none at start-up).",
     "Write `module level` lines, e.g. `osm_sa.c 0x0f` or `routing 0x08`; then SIGHUP."},
    {kPerModuleLogUnknownModule, "Unknown module in the per-module logging file",
     "A line of per_module_logging_file names a module that is neither one of OpenSM 3.3.23's "
     "source files nor an ibsm module, or has text after the level. The line is ignored (a "
     "warning naming file:line); the rest of the file applies.",
     "Use a name from the per-module logging table of docs/configuration.md."},
    {kPerModuleLogUnreadable, "Per-module logging file unreadable",
     "per_module_logging_file names a file that exists but cannot be read. The per-module "
     "levels in force stay. (A file that does not exist means no per-module levels, as in "
     "OpenSM.)",
     "Check the file's permissions."},
    {kPidfileUnwritable, "Cannot write the pid file",
     "The file named by -J/--pidfile cannot be created or written. ibsm does not start, as "
     "OpenSM (which exits when its pid file cannot be written).",
     "Check the directory exists and is writable, or drop -J."},
    {kOpensmKeyInIbsmLine, "OpenSM key on an #ibsm: line",
     "A line of opensm.conf starting with `#ibsm:` (ibsm's form for its own keys, a comment to "
     "OpenSM) names one of OpenSM's keys. OpenSM does not see it, so ibsm ignores it too, lest "
     "the two read one file differently (a warning).",
     "Write OpenSM keys as plain `key value` lines."},
    {kDebugModeIgnored, "Unknown debug mode ignored",
     "-d/--debug was given a number other than 0, 1, 2, 3 (or 5, not supported). OpenSM "
     "ignores such a mode and so does ibsm (a warning).",
     "Use -d 0 (ignore other SMs), 1 (single thread), 2 (flush the log) or 3 (no multicast)."},
};

}  // namespace ibsm::conf
