#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install with apt whatever the build, the guest and the tests need.
# Quiet and quick when everything is there.
set -euo pipefail

pkgs=(linux-source-7.3 linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
      dwarves kmod cpio rsync xz-utils python3 quilt sparse ccache patch git
      qemu-system-x86 qemu-system-data busybox-static
      trace-cmd libtracefs-dev libtraceevent-dev libtracecmd-dev pkg-config
      valgrind strace clang libbpf-dev time
      kernelshark xvfb x11-utils xdotool imagemagick
      qemu-system-gui kmscube glmark2-es2-drm libgl1-mesa-dri bpftrace linux-perf tmux
      python3-sphinx python3-sphinx-rtd-theme blktrace)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "grtrace: installing ${missing[*]}" >&2
sudo=
[ "$(id -u)" = 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# Mainline's tree (linux-source-7.3) comes from trixie-backports, served by
# the mirror the machine's own apt sources name: the entry takes its URI
# from them.  Backports are never installed unless asked for by name.
bpo=/etc/apt/sources.list.d/grtrace-trixie-backports.sources
if [ ! -f "$bpo" ]; then
	uri=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		grep -v security | head -1)
	[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ {print $2; exit}' \
		/etc/apt/sources.list 2>/dev/null)
	[ -n "$uri" ] || { echo "grtrace: no Debian mirror in the apt sources" >&2; exit 1; }
	printf 'Types: deb\nURIs: %s\nSuites: trixie-backports\nComponents: main\nSigned-By: %s\n' \
		"$uri" /usr/share/keyrings/debian-archive-keyring.gpg | $sudo tee "$bpo" >/dev/null
fi
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
