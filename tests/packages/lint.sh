#!/bin/sh
# lintian on the Debian packages and rpmlint on the RPMs in DIST_DIR (default ./dist),
# as built by scripts/package.sh (docs/packaging.md). lintian must report no error and
# no warning (overrides in debian/*.lintian-overrides say why each is kept); rpmlint's
# findings are judged in tests/packages/rpmlint.toml (each filter with its reason).
# Installs lintian and rpmlint from Debian's packages if missing.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
dist=$(cd "${1:-$top/dist}" && pwd)
missing=""
for p in lintian rpmlint; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
status=0
echo "--- lintian"
# --fail-on error,warning: the exit status counts warnings too.
lintian --fail-on error,warning --display-info --suppress-tags-from-file /dev/null \
  "$dist"/ibsm_*.changes || status=1
if ls "$dist"/*.rpm >/dev/null 2>&1; then
  echo "--- rpmlint"
  rpmlint -c "$top/tests/packages/rpmlint.toml" "$top/ibsm.spec" "$dist"/*.rpm || status=1
  echo "--- the RPMs' files are the .debs' at Fedora's paths"
  # Files only (no directories), without docs, build-id links and lintian overrides;
  # Debian's /lib/systemd/system is Fedora's %{_unitdir}, /etc/default Red Hat's
  # /etc/sysconfig.
  for d in "$dist"/ibsm_*.deb "$dist"/ibsm-agent_*.deb; do dpkg-deb -c "$d"; done |
    awk '$1 !~ /^d/ {print $6}' | sed 's#^\./#/#' |
    grep -v '^/usr/share/doc/\|^/usr/share/lintian/' |
    sed 's#^/lib/systemd/system/#/usr/lib/systemd/system/#; s#^/etc/default/ibsm$#/etc/sysconfig/ibsm#' |
    sort >"$dist/.files-deb"
  for r in "$dist"/*.rpm; do rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$r"; done |
    awk '$1 !~ /^d/ {print $2}' | grep -v '^/usr/share/doc/\|^/usr/lib/\.build-id' |
    sort >"$dist/.files-rpm"
  if diff "$dist/.files-deb" "$dist/.files-rpm"; then
    echo "same $(wc -l <"$dist/.files-rpm") files"
  else
    status=1
  fi
  rm -f "$dist/.files-deb" "$dist/.files-rpm"
fi
exit $status
