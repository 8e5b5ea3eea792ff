// Edits of a partitions.conf that change only what they are about: each one
// computes byte-range replacements on the original text from the syntax tree, so
// comments, order and layout elsewhere stay byte for byte. The edited text is
// parsed again and refused if it would not be valid.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "partitions/diagnostic.hpp"

namespace ibsm::partitions {

using EditResult = Result<std::string, Diagnostic>;

// selector: a partition name or a P_Key ("0x0002", "2"; the membership bit is ignored).

// Appends "definition: members;" (definition as in the file: "Name=0x10, ipoib").
EditResult add_partition(const std::string& text, const std::string& definition,
                         const std::string& members);
// Removes every statement of the partition.
EditResult remove_partition(const std::string& text, const std::string& selector);
// member: "0x0002c903000a1b2c[=full|limited|both]" or a keyword. An existing entry for
// the same port or keyword gets the new membership; others are appended to the first
// statement of the partition that lists members.
EditResult add_members(const std::string& text, const std::string& selector,
                       const std::vector<std::string>& members);
EditResult remove_members(const std::string& text, const std::string& selector,
                          const std::vector<std::string>& members);
// sets: "flag[=value]" (ipoib, mtu=4096, rate=7, sl=1, scope=5, Q_Key=..., defmember=full,
// indx0...); unsets: flag names removed from every statement of the partition.
EditResult set_flags(const std::string& text, const std::string& selector,
                     const std::vector<std::string>& sets, const std::vector<std::string>& unsets);

}  // namespace ibsm::partitions
