#include "metrics/gzip_join.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace ibsm::metrics {

struct Deflater::State {
  z_stream s{};
};

Deflater::Deflater(int level) : z_(std::make_unique<State>()) {
  // Negative window bits: raw deflate, the gzip framing is ours.
  if (deflateInit2(&z_->s, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::bad_alloc();
  piece_.crc = static_cast<std::uint32_t>(crc32(0, nullptr, 0));
}

Deflater::~Deflater() {
  deflateEnd(&z_->s);
}

void Deflater::run(std::string_view text, int flush) {
  z_stream& s = z_->s;
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  s.avail_in = static_cast<uInt>(text.size());
  char buf[65536];
  do {
    s.next_out = reinterpret_cast<Bytef*>(buf);
    s.avail_out = sizeof buf;
    deflate(&s, flush);  // Z_BUF_ERROR (no progress possible) is not an error here
    piece_.bytes.append(buf, sizeof buf - s.avail_out);
  } while (s.avail_out == 0 || s.avail_in != 0);
}

void Deflater::add(std::string_view text) {
  piece_.crc = static_cast<std::uint32_t>(crc32(
      piece_.crc, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  piece_.size += text.size();
  // zlib takes at most 4 GiB at a time.
  constexpr std::size_t kStep = std::size_t{1} << 30;
  for (std::size_t at = 0; at < text.size(); at += kStep)
    run(text.substr(at, kStep), Z_NO_FLUSH);
}

DeflatedPiece Deflater::finish(bool last) {
  run({}, last ? Z_FINISH : Z_SYNC_FLUSH);
  piece_.bytes.shrink_to_fit();
  return std::move(piece_);
}

std::string gzip_header() {
  // ID1 ID2, CM = deflate, no flags, no MTIME, no extra flags, OS = Unix (RFC 1952 2.3).
  return std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03", 10);
}

std::string gzip_trailer(const DeflatedPiece& head, const DeflatedPiece* tail) {
  uLong crc = head.crc;
  std::uint64_t size = head.size;
  if (tail) {
    crc = crc32_combine(crc, tail->crc, static_cast<z_off_t>(tail->size));
    size += tail->size;
  }
  std::string t(8, '\0');
  for (int i = 0; i < 4; ++i) {
    t[static_cast<std::size_t>(i)] = static_cast<char>((crc >> (8 * i)) & 0xff);
    t[static_cast<std::size_t>(4 + i)] = static_cast<char>((size >> (8 * i)) & 0xff);  // mod 2^32
  }
  return t;
}

bool accepts_gzip(std::string_view accept) {
  std::size_t at = 0;
  while (at <= accept.size()) {
    std::size_t end = accept.find(',', at);
    if (end == std::string::npos) end = accept.size();
    std::string item(accept.substr(at, end - at));
    at = end + 1;
    const auto semi = item.find(';');
    std::string coding = item.substr(0, semi);
    std::erase_if(coding, [](char c) { return c == ' ' || c == '\t'; });
    for (char& c : coding)  // codings are case-insensitive
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (coding != "gzip" && coding != "x-gzip" && coding != "*") continue;
    if (semi == std::string::npos) return true;
    std::string params = item.substr(semi + 1);
    std::erase_if(params, [](char c) { return c == ' ' || c == '\t'; });
    return params.rfind("q=0", 0) != 0 || params.find_first_of("123456789", 3) != std::string::npos;
  }
  return false;
}

}  // namespace ibsm::metrics
