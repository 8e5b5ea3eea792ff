// Error IDs of M_Key handling (range 24xx, part of the SM core's 2xxx).
// Catalog rows feed docs/errors.md.
#pragma once

#include "common/error.hpp"

namespace ibsm::sm::mkey {

inline constexpr ErrorId kErrMkeySetFailed{2401};
inline constexpr ErrorId kErrMkeyGetFailed{2402};
inline constexpr ErrorId kErrGuid2MkeyRead{2403};
inline constexpr ErrorId kErrGuid2MkeyWrite{2404};
inline constexpr ErrorId kErrSmInfoMkeyMismatch{2405};

inline constexpr ErrorInfo kMkeyErrors[] = {
    {kErrMkeySetFailed, "Set failed: possible mis-set M_Key",
     "A Set (PortInfo, LFT, P_Key table, ...) got no answer while M_Key protection is in use. "
     "A port whose M_Key this SM does not know drops every Set (IBA 14.2.4; OpenSM's ERR "
     "3119). The next sweep is heavy and retries.",
     "Put the port's key into guid2mkey in OSM_CACHE_DIR (0x<port guid> 0x<m_key>), or wait for "
     "its M_KeyLeasePeriod to expire after the violations (the port then drops its protection "
     "and this SM takes it over); a lease of 0 never expires. Compare m_key across SMs."},
    {kErrMkeyGetFailed, "Get timed out: possible mis-set M_Key",
     "A Get got no answer while M_Key protection is in use. A port at protection level 2 or 3 "
     "drops Gets carrying another key, so the node (and what lies behind it on directed "
     "routes) stays invisible (OpenSM's ERR 3120).",
     "As for IBSM-2401: give this SM the port's key (guid2mkey, m_key) or wait for the "
     "lease to expire. If the node is simply down, check the link."},
    {kErrGuid2MkeyRead, "guid2mkey or neighbors unreadable",
     "The guid2mkey or neighbors cache file could not be read or has malformed lines (they "
     "are skipped, each named with file:line; a neighbors record whose peer does not point "
     "back is dropped).",
     "Fix or remove the lines named: guid2mkey holds '0x<port guid> 0x<m_key>', neighbors "
     "'0x<port guid>:<port> 0x<port guid>:<port>' per line. ibsm rewrites both after the "
     "next heavy sweep."},
    {kErrGuid2MkeyWrite, "guid2mkey or neighbors not written",
     "The guid2mkey or neighbors cache file could not be written, so after a restart this SM "
     "may not know the keys it programmed, or which port a first probe reaches.",
     "Check that OSM_CACHE_DIR exists and is writable by ibsm, and that the disk is not full."},
    {kErrSmInfoMkeyMismatch, "SMInfo with a wrong M_Key dropped",
     "Our own port holds a non-zero M_Key and an SMInfo request carried another one: a Set, "
     "or a Get at protection level 2 or 3, is dropped (IBA C14-67, as OpenSM since 3.3.21); "
     "at level 1 a Get is answered with SM_Key 0.",
     "Give the querying SM (or sminfo -y) the subnet's m_key."},
};

}  // namespace ibsm::sm::mkey
