#!/bin/bash
# Build the grtrace guest initramfs (busybox, trace-cmd, /init, /tests) as a gzip'd newc cpio.
set -euo pipefail

out=${1:?usage: mkinitramfs.sh OUT.cpio.gz  (env GUEST_EXTRA_DIRS="SRC:DEST ...")}
here=$(cd "$(dirname "$0")" && pwd)
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

is_elf() { [ -f "$1" ] && [ "$(head -c 4 "$1" | tail -c 3)" = ELF ]; }

# Copy file $1 to the same path in the image, dereferencing symlinks.
put() { mkdir -p "$root$(dirname "$1")" && cp -L "$1" "$root$1"; }

# Copy every shared library (and the ELF interpreter) that ldd reports for $1.
put_libs() {
	local lib
	ldd "$1" 2>/dev/null | grep -q 'not found' &&
		echo "mkinitramfs: warning: $1 has unresolved libraries" >&2
	for lib in $(ldd "$1" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		[ -e "$root$lib" ] || put "$lib"
	done
}

mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,mnt/host,tests}

# busybox and its applet symlinks
cp /bin/busybox "$root/bin/busybox"
for app in $(/bin/busybox --list-full); do
	case $app in bin/busybox|linuxrc) continue ;; esac
	ln -sf /bin/busybox "$root/$app"
done

# trace-cmd with its libraries and libtraceevent plugins
put /usr/bin/trace-cmd
put_libs /usr/bin/trace-cmd
plugins=/usr/lib/x86_64-linux-gnu/traceevent/plugins
if [ -d "$plugins" ]; then
	mkdir -p "$root$plugins"
	cp -L "$plugins"/* "$root$plugins/"
	for p in "$root$plugins"/*; do put_libs "$p"; done
fi

# blktrace and blkparse: tests/22-blktrace.sh checks the series' relay
# against its oldest user
for b in /usr/sbin/blktrace /usr/bin/blkparse; do
	put $b
	put_libs $b
done

# /init and the guest tests
install -m 755 "$here/init" "$root/init"
for t in "$here"/tests/*.sh "$here"/tests/*.lib; do
	[ -e "$t" ] && install -m 755 "$t" "$root/tests/"
done

# Extra directories, with the libraries of any ELF executables in them
for spec in ${GUEST_EXTRA_DIRS:-}; do
	src=${spec%%:*} dest=${spec#*:}
	[ -d "$src" ] || { echo "mkinitramfs: $src: not a directory" >&2; exit 1; }
	mkdir -p "$root$dest"
	cp -a "$src/." "$root$dest/"
	while IFS= read -r -d '' f; do
		is_elf "$f" && put_libs "$f"
	done < <(find "$src" -type f -perm -u+x -print0)
done

tmp=$out.tmp.$$
(cd "$root" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) | gzip -6 > "$tmp"
mv "$tmp" "$out"
echo "mkinitramfs: wrote $out ($(du -h "$out" | cut -f1))"
