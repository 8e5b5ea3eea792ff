// Error IDs of the UFM-compatible REST API (rest/, range 88xx of the 8xxx that operator
// surfaces use). Catalog rows feed docs/errors.md. docs/integrations-ufm.md has the API.
#pragma once

#include "common/error.hpp"

namespace ibsm::rest {

inline constexpr ErrorId kErrRestBadRequest{8801};
inline constexpr ErrorId kErrRestBadPkey{8802};
inline constexpr ErrorId kErrRestBadGuid{8803};
inline constexpr ErrorId kErrRestTooLarge{8804};
inline constexpr ErrorId kErrRestUnauthorized{8805};
inline constexpr ErrorId kErrRestRateLimited{8806};
inline constexpr ErrorId kErrRestUsersFile{8807};
inline constexpr ErrorId kErrRestUsersFileMode{8808};
inline constexpr ErrorId kErrRestStateFile{8809};
inline constexpr ErrorId kErrRestNotFound{8810};

inline constexpr ErrorInfo kRestErrors[] = {
    {kErrRestBadRequest, "REST request body not understood",
     "A POST to the REST API carried a body that is not JSON, not an object, lacks a "
     "mandatory field (\"pkey\", \"guids\"), has a field of the wrong type, a \"membership\" "
     "other than \"full\" or \"limited\", or a field this API does not support "
     "(\"memberships\"). The answer is 400 with the message; nothing changed.",
     "Send the body ib-kubernetes' UFM plugin sends (docs/integrations-ufm.md). A client "
     "that retries forever keeps failing until its body is fixed."},
    {kErrRestBadPkey, "REST request names a P_Key out of range",
     "The \"pkey\" of a request is not a hexadecimal string 0x1-0x7ffe: 0x0000 is the "
     "invalid P_Key, 0x7fff the default partition (its membership is the admin's alone) and "
     "the top bit is the membership, which the request gives in \"membership\". The answer "
     "is 400; nothing changed.",
     "Use a partition number between 0x0001 and 0x7ffe, as UFM requires."},
    {kErrRestBadGuid, "REST request names a malformed GUID",
     "A GUID of a request is not 16 hexadecimal digits (an optional 0x before them), or is "
     "zero. The message names the first bad GUID and its position. The answer is 400; none "
     "of the request's GUIDs was added or removed.",
     "Send GUIDs as ib-kubernetes does: 16 hex digits without separators."},
    {kErrRestTooLarge, "REST request too large",
     "A request body is over the API's bound (1 MiB) or lists more GUIDs than one request "
     "may (32768). The answer is 413; nothing changed.",
     "Split the request. ib-kubernetes sends one request per network and period, far below "
     "the bound."},
    {kErrRestUnauthorized, "REST login refused",
     "A request to the REST API had no Authorization header, one that is not HTTP Basic, "
     "malformed base64, an unknown user or a wrong password. The answer is 401 with "
     "WWW-Authenticate; the log line names the client address and the user given, never "
     "the password.",
     "Check the client's UFM_USERNAME/UFM_PASSWORD against the users file (--rest-users). "
     "Many of these from one address are an attack: see IBSM-8806."},
    {kErrRestRateLimited, "REST logins from an address rate-limited",
     "An address failed to log in more often than the failed-login budget allows (a burst "
     "of 10, then one every 6 s). Its requests get 429 with Retry-After, without checking "
     "the password, until the budget refills, so a password guesser costs no hashing.",
     "If the address is a legitimate client, fix its credentials; it is let in again once "
     "its budget refills. Otherwise block the address."},
    {kErrRestUsersFile, "REST users file not read",
     "The users file of the REST API could not be read, or a line is not `user:hash`: an "
     "empty or unusual user name, a user listed twice, or a hash that is not in crypt(3) "
     "form of SHA-512 ($6$, as `openssl passwd -6` writes), SHA-256 ($5$), yescrypt ($y$) "
     "or bcrypt ($2b$). The message names file:line.",
     "Fix the line; make a hash with `openssl passwd -6`. Until the file reads, the API "
     "refuses every login."},
    {kErrRestUsersFileMode, "REST users file has unsafe ownership or permissions",
     "The users file is not a regular file owned by root, or group or others have any "
     "permission on it. The file holds password hashes, which an unprivileged user could "
     "attack offline or replace, so it is not used.",
     "chown root:root FILE; chmod 600 FILE."},
    {kErrRestStateFile, "REST API state file not read",
     "The file in which the REST API keeps the memberships it added could not be read, or a "
     "line is malformed: an unknown version or keyword, a bad P_Key or GUID, a member of a "
     "partition not declared above it, or an entry listed twice. The message names "
     "file:line.",
     "The file is written by ibsm only; restore it from its backup or fix the line. A "
     "client that retries (ib-kubernetes) adds its memberships again."},
    {kErrRestNotFound, "REST request for an unknown path or method",
     "A request named a path this API does not serve (404) or a method the path does not "
     "take (405, with Allow). Only the calls ib-kubernetes' UFM plugin makes are served.",
     "Check the client's URL; docs/integrations-ufm.md lists the paths."},
};

}  // namespace ibsm::rest
