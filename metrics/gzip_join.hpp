// Gzip answers joined from separately compressed pieces (zlib, RFC 1951/1952), so
// that the big, slowly changing part of /metrics (the port counters: one PerfMgr
// sweep's worth, compressed once, in the background) is served with the small part
// made per request (the SM's own metrics) as one ordinary gzip member, without
// compressing the big part again for every scrape.
//
// A piece is a raw deflate stream ended by a sync flush (byte-aligned, not final) or,
// for the last piece, by the final block; pieces concatenate into one deflate
// stream. The trailer's CRC-32 is combined from the pieces' (crc32_combine).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ibsm::metrics {

struct DeflatedPiece {
  std::string bytes;       // raw deflate
  std::uint32_t crc = 0;   // CRC-32 of the text
  std::uint64_t size = 0;  // bytes of text
};

// Compresses text given in any number of parts into one piece.
class Deflater {
 public:
  explicit Deflater(int level);
  ~Deflater();
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;
  void add(std::string_view text);
  // `last`: ends the deflate stream (the piece must come last in an answer).
  DeflatedPiece finish(bool last);

 private:
  void run(std::string_view text, int flush);
  struct State;
  std::unique_ptr<State> z_;
  DeflatedPiece piece_;
};

// The 10-byte gzip header and the 8-byte trailer of a member made of `head` and then
// `tail` (tail may be null).
std::string gzip_header();
std::string gzip_trailer(const DeflatedPiece& head, const DeflatedPiece* tail);

// Whether an Accept-Encoding header allows gzip (RFC 9110 12.5.3: "gzip;q=0" refuses it).
bool accepts_gzip(std::string_view accept_encoding);

}  // namespace ibsm::metrics
