#!/bin/sh
# The Debian packages' install test (issue 37, docs/packaging.md): in a clean
# Debian 12 root (mmdebstrap, Debian's packages only) where opensm is installed and
# enabled, installs ./dist/ibsm_*.deb and ibsm-agent with apt-get and checks files,
# conffiles and permissions, `ibsm --version`, that `ibsm -c` writes a file opensm
# reads, that opensm's enablement is untouched, the switch-over with systemctl
# (offline, in the chroot), an upgrade to a newer build keeping an edited conffile,
# `dpkg --configure -a` after a failed postinst, remove keeping the conffiles, purge
# returning the root to its file list, and a hand-edited /etc/default/ibsm kept on
# install. Run as root; scripts/test.sh --packages runs it after scripts/package.sh.
#   tests/packages/install_test.sh [DIST_DIR]
# The root (with opensm and ibsm's dependencies) is cached as a tarball in
# $IBSM_PKGTEST_CACHE (default /var/tmp/ibsm-pkgtest), keyed by its package list.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dist=$(cd "${1:-$top/dist}" && pwd)
cache=${IBSM_PKGTEST_CACHE:-/var/tmp/ibsm-pkgtest}
[ "$(id -u)" -eq 0 ] || { echo "install_test: needs root (chroot)" >&2; exit 1; }
command -v mmdebstrap >/dev/null || {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mmdebstrap >/dev/null
}
deb=$(ls "$dist"/ibsm_*.deb | head -n 1)
agent=$(ls "$dist"/ibsm-agent_*.deb | head -n 1)
version=$(dpkg-deb -f "$deb" Version)

t0=$(date +%s)
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
check() { # check NAME COMMAND...: passes if the command succeeds
  name=$1; shift
  if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi
}

# The root: opensm (enabled, as its package leaves it), systemd for systemctl, and the
# packages' dependencies and recommendations, so that installing and purging ibsm
# changes nothing else and needs no network.
deps=$(for d in "$deb" "$agent"; do dpkg-deb -f "$d" Depends Recommends; done |
  sed 's/^[A-Za-z]*: //' | tr ',' '\n' | sed -E 's/\(.*\)//; s/[[:space:]]//g; s/\|.*//' |
  grep -v '^$' | sort -u | tr '\n' ',')
# libumad2sim0: ibsm -o on ibsim inside the root (below).
include="systemd,opensm,libumad2sim0,${deps%,}"
key=$(printf '%s' "$include" | sha256sum | cut -c1-12)
tarball="$cache/bookworm-$key.tar"
mkdir -p "$cache"
if [ ! -f "$tarball" ]; then
  echo "install_test: making a Debian 12 root with $include" >&2
  mmdebstrap --quiet --variant=apt --include="$include" bookworm "$cache/new-$key.tar" \
    "deb http://deb.debian.org/debian bookworm main" \
    "deb http://deb.debian.org/debian bookworm-updates main" \
    "deb http://deb.debian.org/debian-security bookworm-security main"
  mv "$cache/new-$key.tar" "$tarball"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-pkgtest.XXXXXX")
root=$work/root
sim_pid=
cleanup() {
  if [ -n "$sim_pid" ]; then kill "$sim_pid" 2>/dev/null || true; wait "$sim_pid" 2>/dev/null || true; fi
  umount "$root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir "$root"
tar -xf "$tarball" -C "$root"
mount -t proc proc "$root/proc"
# No service starts inside the chroot (invoke-rc.d asks policy-rc.d; systemd is
# not running there, so deb-systemd-invoke does nothing either).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
mkdir -p "$root/tmp/dist"
cp "$deb" "$agent" "$root/tmp/dist/"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
apt_keep() { # apt-get with dpkg told to keep the admin's conffiles without asking
  in_root apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "$@"
}
# The root's files: mode, owner, path, and a link's target. Logs, apt's and debconf's
# caches and dpkg's backup files change with any apt run and are left out.
listing() {
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./tmp -o -path ./var/log \
    -o -path ./var/cache/apt -o -path ./var/lib/apt -o -path ./var/cache/debconf \
    -o -path ./var/cache/ldconfig -o -name '*-old' \) -prune -o -printf '%M %u:%g %p %l\n' | sort)
}
opensm_links() {
  (cd "$root" && find ./etc -name '*opensm*' -type l -printf '%p -> %l\n' | sort)
}
wants() { [ -L "$root/etc/systemd/system/$1.wants/$2" ]; }

# opensm as its package leaves it: enabled (rc*.d links; Debian's opensm.service is
# WantedBy=network-online.target).
check "opensm is enabled in the root before ibsm comes" wants network-online.target opensm.service
opensm_before=$(opensm_links)
before=$(listing)
apt_list_before=$(in_root dpkg-query -W -f='${Package} ${Version}\n' | sort)

# --- install
if in_root apt-get install -y -q /tmp/dist/"$(basename "$deb")" /tmp/dist/"$(basename "$agent")" \
  >"$work/install.log" 2>&1; then ok "apt-get install ./ibsm_*.deb ./ibsm-agent_*.deb"
else bad "apt-get install"; tail -20 "$work/install.log"; fi
check "nothing else was installed" test "$(in_root dpkg-query -W -f='${Package}\n' | sort | grep -vx 'ibsm\|ibsm-agent')" = "$(printf '%s\n' "$apt_list_before" | cut -d' ' -f1)"
check "ibsm --version runs" in_root ibsm --version
check "ibsm-ctl --help runs" in_root ibsm-ctl --help
check "ibsm-part --help runs" in_root ibsm-part --help
check "ibsm-agent --help runs" in_root ibsm-agent --help
perm() { # perm PATH MODE: a file of root:root with that mode
  [ "$(stat -c '%a %U:%G' "$root$1")" = "$2 root:root" ]
}
for f in /usr/sbin/ibsm /usr/sbin/ibsm-ctl /usr/sbin/ibsm-part /usr/sbin/ibsm-agent \
  /usr/libexec/ibsm/ibsm-launch; do check "$f 755 root:root" perm "$f" 755; done
for f in /etc/default/ibsm /etc/logrotate.d/ibsm /etc/ibsm/ibsm.toml \
  /lib/systemd/system/ibsm.service /lib/systemd/system/ibsm@.service \
  /lib/systemd/system/ibsm-agent.service /usr/share/man/man8/ibsm.8.gz \
  /usr/share/man/man8/ibsm-agent.8.gz; do check "$f 644 root:root" perm "$f" 644; done
conffiles=$(in_root dpkg-query -W -f='${Conffiles}\n' ibsm | awk 'NF {print $1}' | sort | tr '\n' ' ')
check "conffiles: /etc/default/ibsm /etc/ibsm/ibsm.toml /etc/logrotate.d/ibsm" \
  test "$conffiles" = "/etc/default/ibsm /etc/ibsm/ibsm.toml /etc/logrotate.d/ibsm "
check "ibsm-agent has no conffiles" test -z "$(in_root dpkg-query -W -f='${Conffiles}' ibsm-agent)"
check "no system user or group was added" test "$(grep -c ibsm "$root/etc/passwd" "$root/etc/group" | grep -v ':0$' || true)" = ""
check "ibsm.service is not enabled on install" sh -c "! ls $root/etc/systemd/system/*.wants/ibsm.service 2>/dev/null"
check "ibsm-agent.service is enabled (it waits for /etc/ibsm/node.toml)" wants multi-user.target ibsm-agent.service
check "ibsm-agent-ping-responder.service is not enabled" sh -c "! ls $root/etc/systemd/system/*.wants/ibsm-agent-ping-responder.service 2>/dev/null"
check "opensm's enablement links are untouched" test "$(opensm_links)" = "$opensm_before"
check "ibsm.service conflicts with opensm.service" grep -qx 'Conflicts=opensm.service' "$root/lib/systemd/system/ibsm.service"
check "the prerm stops ibsm.service on removal" grep -q "deb-systemd-invoke stop.*ibsm.service" "$root/var/lib/dpkg/info/ibsm.prerm"
# `ibsm -c` writes a file that opensm reads (opensm -F FILE -c OUT parses it and exits).
in_root ibsm -c /tmp/ibsm-written.conf >/dev/null 2>&1 || true
check "ibsm -c writes a configuration" test -s "$root/tmp/ibsm-written.conf"
in_root opensm -F /tmp/ibsm-written.conf -c /tmp/opensm-read.conf >"$work/opensm-c.log" 2>&1 || true
check "opensm reads ibsm -c's file without complaint" sh -c \
  "test -s $root/tmp/ibsm-written.conf && test -s $root/tmp/opensm-read.conf && ! grep -qi 'unrecognized\|error' $work/opensm-c.log"

# --- ibsm -o on ibsim: the simulator runs on the host (its sockets are abstract, so the
# chroot reaches them); ibsm runs inside with the root's libumad2sim preloaded, its
# cache, log and dumps in the root's /tmp.
net=/usr/share/doc/ibsim-utils/net-examples/net.2sw2path4hca
if command -v ibsim >/dev/null && [ -f "$net" ] &&
  [ -e "$root/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so" ]; then
  sock="ibsm-pkgtest-$$"
  mkfifo "$work/console"
  IBSIM_SOCKNAME=$sock ibsim -s -n "$net" <"$work/console" >"$work/ibsim.log" 2>&1 &
  sim_pid=$!
  exec 9>"$work/console"
  i=0
  until grep -q "Network simulator ready." "$work/ibsim.log" 2>/dev/null &&
    grep -q "@$sock:ctl" /proc/net/unix; do
    i=$((i + 1))
    [ $i -lt 300 ] && kill -0 "$sim_pid" 2>/dev/null || break
    sleep 0.1
  done
  mkdir -p "$root/tmp/sm"
  if chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin IBSIM_SOCKNAME="$sock" \
    LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so OSM_CACHE_DIR=/tmp/sm \
    timeout 120 ibsm -o -f /tmp/sm/ibsm.log --dump_files_dir /tmp/sm \
    --ctl-socket /tmp/sm/ibsm.sock >"$work/sm.out" 2>&1; then
    ok "ibsm -o inside the root brings up ibsim's $(basename "$net") (SUBNET UP)"
  else
    bad "ibsm -o on ibsim inside the root"; tail -5 "$work/sm.out" "$root/tmp/sm/ibsm.log" 2>/dev/null
  fi
  exec 9>&-
  kill "$sim_pid" 2>/dev/null || true
  wait "$sim_pid" 2>/dev/null || true
  sim_pid=
else
  echo "skip ibsm -o on ibsim (no ibsim-utils on this host)"
fi

# --- the switch-over, as docs/packaging.md says (systemctl works offline in a chroot)
in_root systemctl disable opensm >/dev/null 2>&1 || true
in_root systemctl enable ibsm >/dev/null 2>&1 || true
check "after the switch: opensm.service not wanted" sh -c "! ls $root/etc/systemd/system/*.wants/opensm.service"
check "after the switch: ibsm.service wanted by multi-user.target" test "$(readlink "$root/etc/systemd/system/multi-user.target.wants/ibsm.service")" = /lib/systemd/system/ibsm.service
check "after the switch: ibsm.service wanted by network-online.target" wants network-online.target ibsm.service
check "after the switch: opensm's SysV links say stop (K)" sh -c "ls $root/etc/rc2.d/K*opensm && ! ls $root/etc/rc2.d/S*opensm" 
# and back, so that purge can be compared with the first listing
in_root systemctl disable ibsm >/dev/null 2>&1 || true
in_root systemctl enable opensm >/dev/null 2>&1 || true
check "switching back restores opensm's links" test "$(opensm_links)" = "$opensm_before"
in_root systemctl enable ibsm >/dev/null 2>&1 || true
in_root systemctl disable opensm >/dev/null 2>&1 || true

# --- upgrade to a newer build whose /etc/default/ibsm changed, with the admin's edit
echo 'PORTS=NONE  # the admin' >>"$root/etc/default/ibsm"
echo '# the admin' >>"$root/etc/logrotate.d/ibsm"
edited=$(sha256sum <"$root/etc/default/ibsm")
logrotate_edited=$(sha256sum <"$root/etc/logrotate.d/ibsm")
dpkg-deb -R "$deb" "$work/v2"
newversion="$version+1"
sed -i "s/^Version: .*/Version: $newversion/" "$work/v2/DEBIAN/control"
echo '# a line the newer build added' >>"$work/v2/etc/default/ibsm"
(cd "$work/v2" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum >DEBIAN/md5sums)
dpkg-deb -b -Zgzip "$work/v2" "$root/tmp/dist/ibsm_${newversion}_new.deb" >/dev/null
if apt_keep install /tmp/dist/ibsm_${newversion}_new.deb >"$work/upgrade.log" 2>&1; then
  ok "upgrade to $newversion (dpkg keeps the admin's conffiles, non-interactive)"
else bad "upgrade"; tail -20 "$work/upgrade.log"; fi
check "upgrade: version is $newversion" test "$(in_root dpkg-query -W -f='${Version}' ibsm)" = "$newversion"
check "upgrade: the admin's /etc/default/ibsm is kept" test "$(sha256sum <"$root/etc/default/ibsm")" = "$edited"
check "upgrade: the package's new one is beside it (.dpkg-dist)" grep -q 'newer build' "$root/etc/default/ibsm.dpkg-dist"
check "upgrade: the edited logrotate file (unchanged in the package) is kept" test "$(sha256sum <"$root/etc/logrotate.d/ibsm")" = "$logrotate_edited"
check "upgrade: ibsm.service stays enabled" wants multi-user.target ibsm.service
check "upgrade: opensm stays disabled" sh -c "! ls $root/etc/systemd/system/*.wants/opensm.service"

# --- a failed postinst, fixed, then dpkg --configure -a: the failure is injected at
# the end of the unpacked postinst, after debhelper's steps ran once.
in_root dpkg --unpack /tmp/dist/"$(basename "$deb")" >/dev/null 2>&1 || true
echo '[ ! -e /tmp/ibsm-fail-postinst ] || { echo "injected failure" >&2; exit 1; }' \
  >>"$root/var/lib/dpkg/info/ibsm.postinst"
touch "$root/tmp/ibsm-fail-postinst"
check "the injected postinst failure fails configure" sh -c \
  "! chroot $root dpkg --configure --force-confdef --force-confold ibsm"
check "ibsm is half-configured" test "$(in_root dpkg-query -W -f='${Status}' ibsm)" = "install ok half-configured"
rm "$root/tmp/ibsm-fail-postinst"
check "dpkg --configure -a recovers" in_root dpkg --configure -a --force-confdef --force-confold
check "ibsm is installed again" test "$(in_root dpkg-query -W -f='${Status}' ibsm)" = "install ok installed"
check "the admin's /etc/default/ibsm survived the downgrade and recovery" test "$(sha256sum <"$root/etc/default/ibsm")" = "$edited"

# --- remove keeps the conffiles; purge leaves the first listing
in_root systemctl disable ibsm >/dev/null 2>&1 || true
in_root systemctl enable opensm >/dev/null 2>&1 || true
check "apt-get remove ibsm ibsm-agent" apt_keep remove ibsm ibsm-agent
check "remove: the binaries are gone" test ! -e "$root/usr/sbin/ibsm"
check "remove: the conffiles stay" test -f "$root/etc/default/ibsm" -a -f "$root/etc/ibsm/ibsm.toml" -a -f "$root/etc/logrotate.d/ibsm"
check "remove: dpkg says config-files" test "$(in_root dpkg-query -W -f='${Status}' ibsm)" = "deinstall ok config-files"
check "apt-get purge ibsm ibsm-agent" apt_keep purge ibsm ibsm-agent
after=$(listing)
if [ "$before" = "$after" ]; then ok "purge: the root's file list is as before the install"
else
  bad "purge: the root's file list differs"
  printf '%s\n' "$before" >"$work/before"; printf '%s\n' "$after" >"$work/after"
  diff "$work/before" "$work/after" | head -20
fi
check "purge: opensm's links are as before" test "$(opensm_links)" = "$opensm_before"

# --- a hand-written /etc/default/ibsm before the first install is kept
printf 'PORTS=NONE\n' >"$root/etc/default/ibsm"
check "install over a hand-written /etc/default/ibsm (non-interactive)" \
  apt_keep install /tmp/dist/"$(basename "$deb")"
check "the hand-written /etc/default/ibsm is kept" test "$(cat "$root/etc/default/ibsm")" = "PORTS=NONE"
apt_keep purge ibsm >/dev/null 2>&1 || true

echo "install_test: $pass passed, $fail failed in $(($(date +%s) - t0)) s"
[ "$fail" -eq 0 ]
