#!/usr/bin/env bash
# Installs Debian packages (as root, or through sudo) for the ensure-*.sh scripts, without letting a
# package start a service of its own (nginx would take port 80).
#   scripts/apt-install.sh WHO PACKAGE...    WHO names the caller in an error
set -euo pipefail
who=$1
shift
as_root=()
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "$who: not found; install it: apt-get install $*" >&2; exit 1; }
  as_root=(sudo)
fi
"${as_root[@]}" apt-get update -qq >&2
# A policy-rc.d that answers 101 tells the packages' scripts not to start services.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | "${as_root[@]}" tee /usr/sbin/policy-rc.d >/dev/null
  "${as_root[@]}" chmod +x /usr/sbin/policy-rc.d
  trap '"${as_root[@]}" rm -f /usr/sbin/policy-rc.d' EXIT
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2
