// One description per wire attribute drives encode, decode and dump.
//
// An attribute struct lists its fields once, in `fields(self, visit)`, pairing each
// member with libibmad's description of where it lives on the wire (the
// MAD_FIELDS enum: bit offset and width, IBA layout). The generic functions here
// walk that list. Attributes with tables rather than fields (LFT blocks, P_Key
// blocks, NodeDescription) provide `encode_payload`/`decode_payload` instead.
//
// Fields newer than the Debian libibmad (PortInfo's XDR fields, IBA 1.7) are
// described here with a LocalField: the same bit position notation (bit 0 is the
// most significant bit of byte 0), name and dump text as libibmad gives its own.
//
// Decoding never throws: a payload of the wrong size, or one whose values break
// the attribute's rules (`validate`), is a Result error.
#pragma once

#include <infiniband/mad.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <type_traits>

#include "common/result.hpp"
#include "mad/errors.hpp"

namespace ibsm::mad {

inline constexpr std::size_t kSmpDataSize = IB_SMP_DATA_SIZE;  // 64 bytes (IBA 14.2.1.1)

using Payload = std::span<std::uint8_t, kSmpDataSize>;
using ConstPayload = std::span<const std::uint8_t, kSmpDataSize>;

// A field the installed libibmad does not describe: `offset` bits from the start of
// the attribute (IBA numbering: bit 0 is the MSB of byte 0), `bits` wide (at most 32).
struct LocalField {
  unsigned offset = 0;
  unsigned bits = 0;
  const char* name = "";
  // Text of a value for dump(), as libibmad's dumper for the field prints it.
  const char* (*text)(std::uint32_t value, char* buf, std::size_t size) = nullptr;
};

namespace detail {

// libibmad's accessors take non-const pointers but do not write through them on get.
inline void* raw(ConstPayload p) {
  return const_cast<std::uint8_t*>(p.data());
}

template <class T>
void get_field(ConstPayload p, MAD_FIELDS f, T& out) {
  if constexpr (sizeof(T) == 8) {
    out = static_cast<T>(mad_get_field64(raw(p), 0, f));
  } else if constexpr (std::is_same_v<T, bool>) {
    out = mad_get_field(raw(p), 0, f) != 0;
  } else {
    out = static_cast<T>(mad_get_field(raw(p), 0, f));
  }
}

template <class T>
void get_field(ConstPayload p, const LocalField& f, T& out) {
  std::uint32_t v = 0;
  for (unsigned b = f.offset; b < f.offset + f.bits && b < 8 * kSmpDataSize; ++b)
    v = (v << 1) | ((p[b / 8] >> (7 - b % 8)) & 1u);
  out = static_cast<T>(v);
}

template <class T>
void set_field(Payload p, const LocalField& f, const T& value) {
  const auto v = static_cast<std::uint32_t>(value);
  for (unsigned i = 0; i < f.bits; ++i) {
    const unsigned b = f.offset + i;
    if (b >= 8 * kSmpDataSize) break;
    const auto mask = static_cast<std::uint8_t>(1u << (7 - b % 8));
    if ((v >> (f.bits - 1 - i) & 1u) != 0)
      p[b / 8] |= mask;
    else
      p[b / 8] &= static_cast<std::uint8_t>(~mask);
  }
}

// One dump line of a LocalField in libibmad's layout: "Name:", dots to make up 32
// less the name's length, then the value.
inline void dump_field(const LocalField& f, char* line, std::size_t size, std::uint32_t v) {
  char value[64];
  const char* text = f.text != nullptr ? f.text(v, value, sizeof value) : nullptr;
  if (text == nullptr) {
    std::snprintf(value, sizeof value, "%u", v);
    text = value;
  }
  const std::string name = f.name;
  const std::string head = name + ":" + std::string(name.size() < 32 ? 32 - name.size() : 0, '.');
  std::snprintf(line, size, "%s%s", head.c_str(), text);
}
inline void dump_field(MAD_FIELDS f, char* line, std::size_t size, std::uint32_t v) {
  mad_dump_field(f, line, static_cast<int>(size), &v);
}
inline void dump_field(MAD_FIELDS f, char* line, std::size_t size, std::uint64_t v) {
  mad_dump_field(f, line, static_cast<int>(size), &v);
}

template <class T>
void set_field(Payload p, MAD_FIELDS f, const T& v) {
  if constexpr (sizeof(T) == 8) {
    mad_set_field64(p.data(), 0, f, static_cast<std::uint64_t>(v));
  } else {
    mad_set_field(p.data(), 0, f, static_cast<std::uint32_t>(v));
  }
}

template <class A>
concept HasFields = requires(const A& a) {
  A::fields(a, [](const auto&, const auto&) {});
};

template <class A>
concept HasPayloadCodec = requires(const A& a, Payload out, ConstPayload in) {
  A::encode_payload(a, out);
  { A::decode_payload(in) } -> std::same_as<A>;
};

template <class A>
concept HasValidate = requires(const A& a) {
  { A::validate(a) } -> std::same_as<Status>;
};

}  // namespace detail

// Writes `a` into a zeroed 64-byte SMP data area.
template <class A>
void encode(const A& a, Payload out) {
  std::fill(out.begin(), out.end(), std::uint8_t{0});
  if constexpr (detail::HasPayloadCodec<A>) {
    A::encode_payload(a, out);
  } else {
    A::fields(a, [&](const auto& f, const auto& member) { detail::set_field(out, f, member); });
  }
}

// Reads an attribute from untrusted bytes.
template <class A>
Result<A> decode(std::span<const std::uint8_t> in) {
  if (in.size() < kSmpDataSize) {
    return fail(kErrMalformedMad, std::string(A::kName) + ": payload of " +
                                      std::to_string(in.size()) + " bytes, expected 64");
  }
  ConstPayload p(in.data(), kSmpDataSize);
  A a{};
  if constexpr (detail::HasPayloadCodec<A>) {
    a = A::decode_payload(p);
  } else {
    A::fields(a, [&](const auto& f, auto& member) { detail::get_field(p, f, member); });
  }
  if constexpr (detail::HasValidate<A>) {
    if (auto st = A::validate(a); !st.ok()) return fail(st.error());
  }
  return a;
}

// Human-readable dump in libibmad's (smpquery's) notation, one field per line.
template <class A>
std::string dump(const A& a) {
  std::string out;
  if constexpr (detail::HasFields<A>) {
    A::fields(a, [&](const auto& f, const auto& member) {
      // libibmad's capability-mask dumpers append one line per set bit with sprintf
      // and ignore the size given: 32 set bits need about 1.3 KB.
      char line[4096];
      if constexpr (sizeof(member) == 8) {
        detail::dump_field(f, line, sizeof line, static_cast<std::uint64_t>(member));
      } else {
        detail::dump_field(f, line, sizeof line, static_cast<std::uint32_t>(member));
      }
      out += line;
      out += '\n';
    });
  } else {
    out = A::describe(a);
  }
  return out;
}

}  // namespace ibsm::mad
