# SPDX-License-Identifier: GPL-2.0
# Sourced by build-config.sh and backport.sh, after lib.sh.

# same_code BASE DIR: each object of the DRM scheduler and virtio-gpu in DIR
# has the .text of BASE's, and the same undefined symbols (a call into
# grtrace would add one): the configurations' (build-config.sh,
# backport.sh) drivers run the same code with CONFIG_GRTRACE=y, =m, =n.
same_code() {
	local o n=0 bad=0

	for o in $(cd "$1" && ls drivers/gpu/drm/scheduler/*.o drivers/gpu/drm/virtio/*.o |
			grep -v -e built-in -e '\.mod\.o$'); do
		n=$((n + 1))
		if [ ! -f "$2/$o" ]; then
			echo "$o: not built"
		elif ! cmp -s <(objcopy -O binary -j .text "$1/$o" /dev/stdout) \
			      <(objcopy -O binary -j .text "$2/$o" /dev/stdout); then
			echo "$o: its .text differs"
		elif ! cmp -s <(nm -u "$1/$o") <(nm -u "$2/$o"); then
			echo "$o: names other symbols: $(diff <(nm -u "$1/$o") <(nm -u "$2/$o") | grep '^[<>]' | head -3 | paste -sd' ')"
		else
			continue
		fi
		bad=$((bad + 1))
	done
	echo "$n objects, $bad differ"
	[ "$n" -gt 0 ] && [ "$bad" = 0 ]
}
