// A small hand-drawn fabric several SM tests share (net-file text):
// two switches joined by two parallel cables, a triangle closing a loop through a
// third switch, and a two-port CA on two switches:
//
//   h1 --1[ s1 ]3====3[ s2 ]1-- h2
//   h3 --2[    ]5====5[    ]2-- h4
//          [ s1 ]6 ---- 1[ s3 ]2 ---- 6[ s2 ]
//                     s3 port 3 -- hx port 1; hx port 2 -- s2 port 7
#pragma once

#include <string_view>

namespace ibsm::testsupport {

inline constexpr std::string_view kHandDrawnNet = R"(Switch 8 "s1"
[1] "h1"[1]
[2] "h3"[1]
[3] "s2"[3]
[5] "s2"[5]
[6] "s3"[1]

Switch 8 "s2"
[1] "h2"[1]
[2] "h4"[1]
[3] "s1"[3]
[5] "s1"[5]
[6] "s3"[2]
[7] "hx"[2]

Switch 4 "s3"
[1] "s1"[6]
[2] "s2"[6]
[3] "hx"[1]

Hca 1 "h1"
[1] "s1"[1]

Hca 1 "h2"
[1] "s2"[1]

Hca 1 "h3"
[1] "s1"[2]

Hca 1 "h4"
[1] "s2"[2]

Hca 2 "hx"
[1] "s3"[3]
[2] "s2"[7]
)";

// Two switches and three hosts for the election and trap tests: the SM on "ha",
// another SM can run on "hc" or "hd"; "hd" hangs off switch a's port 3.
//
//   ha --1[ a ]2 -- 1[ b ]2 -- hc
//   hd --3[   ]
inline constexpr std::string_view kTwoSwitchNet = R"(Switch 4 "a"
[1] "ha"[1]
[2] "b"[1]
[3] "hd"[1]

Switch 2 "b"
[1] "a"[2]
[2] "hc"[1]

Hca 1 "ha"
[1] "a"[1]

Hca 1 "hc"
[1] "b"[2]

Hca 1 "hd"
[1] "a"[3]
)";

}  // namespace ibsm::testsupport
