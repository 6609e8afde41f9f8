#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install with apt whatever the build, the guest and the tests need.
# Quiet and quick when everything is there.
set -euo pipefail

pkgs=(linux-source-6.12 build-essential flex bison bc libelf-dev libssl-dev
      dwarves kmod cpio rsync xz-utils python3 quilt sparse ccache patch git
      qemu-system-x86 qemu-system-data busybox-static
      trace-cmd libtracefs-dev libtraceevent-dev libtracecmd-dev pkg-config
      valgrind clang libbpf-dev time
      kernelshark xvfb x11-utils xdotool imagemagick
      qemu-system-gui kmscube glmark2-es2-drm libgl1-mesa-dri bpftrace linux-perf
      python3-sphinx python3-sphinx-rtd-theme)

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
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
