# SPDX-License-Identifier: GPL-2.0-only
# bash completion of grtrace(1), installed as
# $(PREFIX)/share/bash-completion/completions/grtrace: the commands, as
# "grtrace help" lists them; a command's options, as the option lines of
# "grtrace COMMAND --help" name them, so that the two never disagree; a
# file or directory after an option that takes one, and for a command's
# FILE.

# The word as the shell will read it, for the usual quotings of a file
# name (my\ file, "my file, 'my file); nothing is evaluated.
_grtrace_dequote()
{
	local w=${1#[\"\']}

	printf '%s' "${w//\\/}"
}

_grtrace()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local g=${COMP_WORDS[0]} words

	COMPREPLY=()
	if [ "$COMP_CWORD" -eq 1 ] || { [ "$COMP_CWORD" -eq 2 ] && [ "$prev" = help ]; }; then
		words=$("$g" help 2> /dev/null |
			awk '/^  commands:/ { on = 1; next } on && $2 == "-" { print $1 }')
	else
		case $prev in
		-i | --input | -g | --gpu | -c | --cpu | -o | --output | -k | --kernelshark | \
		--kernelshark-session | --chrome | --host | --trace | --save)
			mapfile -t COMPREPLY < <(compgen -f -- "$(_grtrace_dequote "$cur")")
			return 0
			;;
		esac
		case $cur in
		-*)
			# An option line starts with its names, up to the colon
			words=$("$g" "${COMP_WORDS[1]}" --help 2> /dev/null |
				sed -nE 's/^ {1,8}((-[a-zA-Z]\/)?--[a-z][^:]*):.*/\1/p' |
				grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)
			;;
		*)
			mapfile -t COMPREPLY < <(compgen -f -- "$(_grtrace_dequote "$cur")")
			return 0
			;;
		esac
	fi
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -o filenames -F _grtrace grtrace
