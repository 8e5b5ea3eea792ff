#!/bin/sh
# Builds the Debian packages (ibsm, ibsm-agent and their -dbgsym) and the RPM
# (ibsm.spec, with rpmbuild -bb against the same build's install tree) from the
# committed tree (HEAD) into ./dist/ (docs/packaging.md). Uncommitted changes are
# not packaged. Installs debhelper and rpm from Debian's packages if they are missing.
#   scripts/package.sh               both
#   scripts/package.sh --deb-only    no RPM
# Environment: IBSM_PKG_REF (default HEAD) packages another commit; IBSM_PKG_KEEP=1
# keeps the temporary build directory;
# IBSM_PKG_REVISION (default 1) the Debian revision / RPM release.
# The version is meson's project version plus the git description:
# 0.1.0+git<N>.g<hash>-1, N the commits since the last tag (or since the start).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rpm=yes
[ "${1:-}" = "--deb-only" ] && rpm=no
ref=${IBSM_PKG_REF:-HEAD}
revision=${IBSM_PKG_REVISION:-1}

need="debhelper meson ninja-build pkg-config dpkg-dev fakeroot"
[ $rpm = no ] || need="$need rpm"
missing=""
for p in $need; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "package.sh: missing:$missing (run as root)" >&2; exit 1; }
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
"$top/scripts/install-deps.sh"

base=$(git show "$ref:meson.build" | sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" | head -n 1)
[ -n "$base" ] || { echo "package.sh: no version in meson.build" >&2; exit 1; }
hash=$(git rev-parse --short=7 "$ref")
if desc=$(git describe --tags --long --match 'v[0-9]*' "$ref" 2>/dev/null); then
  n=$(printf '%s\n' "$desc" | sed -E 's/.*-([0-9]+)-g[0-9a-f]+$/\1/')
else
  n=$(git rev-list --count "$ref")
fi
upstream="$base+git$n.g$hash"
version="$upstream-$revision"
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then
  echo "package.sh: note: uncommitted changes are not packaged (building $ref = $hash)" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/ibsm-package.XXXXXX")
# IBSM_PKG_KEEP=1 keeps the build directory (its debian/tmp is the install tree).
if [ "${IBSM_PKG_KEEP:-0}" = 1 ]; then
  echo "package.sh: keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
fi
src="$work/ibsm-$upstream"
# The upstream tarball is the tree without debian/ (format 3.0 (quilt)).
git archive --format=tar --prefix="ibsm-$upstream/" "$ref" -- . ':(exclude)debian' |
  gzip -n -6 >"$work/ibsm_$upstream.orig.tar.gz"
tar -xzf "$work/ibsm_$upstream.orig.tar.gz" -C "$work"
git archive --format=tar "$ref" debian | tar -xf - -C "$src"
date_r=$(date -R -d "@$(git log -1 --format=%ct "$ref")")
maint=$(sed -n 's/^Maintainer: //p' "$src/debian/control")
cat >"$src/debian/changelog" <<CHANGELOG
ibsm ($version) bookworm; urgency=medium

  * Snapshot of commit $hash.

 -- $maint  $date_r
CHANGELOG

t0=$(date +%s)
echo "package.sh: building ibsm $version in $work" >&2
(cd "$src" && DEB_BUILD_OPTIONS="parallel=$(nproc) ${DEB_BUILD_OPTIONS:-}" \
  nice -n 10 dpkg-buildpackage -us -uc >"$work/build.log" 2>&1) || {
  tail -40 "$work/build.log" >&2
  echo "package.sh: dpkg-buildpackage failed (log above)" >&2
  exit 1
}
echo "package.sh: Debian packages built in $(($(date +%s) - t0)) s" >&2
mkdir -p dist
rm -f dist/ibsm*_*.deb dist/ibsm_*.dsc dist/ibsm_*.tar.* dist/ibsm_*.changes dist/ibsm_*.buildinfo \
  dist/ibsm-*.rpm
cp "$work"/*.deb "$work"/*.dsc "$work"/*.tar.* "$work"/*.changes "$work"/*.buildinfo dist/
cp "$work/build.log" dist/build-deb.log

if [ $rpm = yes ]; then
  # The RPM of the same build: ibsm.spec's %install copies the Debian build's install
  # tree (debian/tmp) to Fedora's paths when ibsm_prebuilt is defined.
  rpm_version=$(printf '%s' "$upstream" | sed 's/+/^/')
  rpmbuild -bb --nodeps --quiet \
    --define "_topdir $work/rpm" \
    --define "ibsm_version $rpm_version" \
    --define "ibsm_release $revision" \
    --define "ibsm_prebuilt $src/debian/tmp" \
    --define "ibsm_source $src" \
    ibsm.spec >"$work/rpm.log" 2>&1 || {
    tail -40 "$work/rpm.log" >&2
    echo "package.sh: rpmbuild failed (log above)" >&2
    exit 1
  }
  cp "$work"/rpm/RPMS/*/*.rpm dist/
fi
echo "package.sh: done in $(($(date +%s) - t0)) s:" >&2
for f in dist/*; do case $f in *.log) ;; *) echo "  $f" >&2 ;; esac; done
