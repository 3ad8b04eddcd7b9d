# SPDX-License-Identifier: GPL-2.0
# bash completion for timerconv (installed by make install into
# $(PREFIX)/share/bash-completion/completions/timerconv).
#
# The options come from `timerconv COMMAND --help` itself, so they never
# fall behind the program; what an option takes is known here.  Plain
# bash: the bash-completion package is not needed.

_timerconv_options()
{
	local cmd=$1 var=_timerconv_opts_$1

	if [[ -z ${!var} ]]; then
		printf -v "$var" '%s' "$(LC_ALL=C "${_timerconv_bin:-timerconv}" \
			"$cmd" --help 2>/dev/null |
			sed -n 's/^ *\(-[A-Za-z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p')"
	fi
	printf '%s\n' "${!var}"
}

_timerconv_revs()
{
	git rev-parse --git-dir >/dev/null 2>&1 || return
	printf '%s\n' HEAD
	git for-each-ref --format='%(refname:short)' refs/heads refs/tags \
		refs/remotes 2>/dev/null
}

_timerconv()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=
	local cmd= i

	_timerconv_bin=${COMP_WORDS[0]}
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		convert | series | check) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	COMPREPLY=()
	if [[ -z $cmd ]]; then
		COMPREPLY=($(compgen -W 'convert series check --help --version' \
			-- "$cur"))
		return
	fi
	case $prev in
	-C | --tree | --out | --build-dir | --kernel-headers | -I | --include)
		COMPREPLY=($(compgen -d -- "$cur"))
		return ;;
	--report | --baseline | --write-baseline | --macro-file | \
	--compat-header | --api-header)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W 'text json sarif github' -- "$cur"))
		return ;;
	--split)
		COMPREPLY=($(compgen -W 'maintainers directory none' \
			-- "$cur"))
		return ;;
	--target)
		COMPREPLY=($(compgen -W 'auto v4.15 v6.2 v6.16' -- "$cur"))
		return ;;
	--config)
		COMPREPLY=($(compgen -W 'defconfig allmodconfig allyesconfig' \
			-- "$cur") $(compgen -f -- "$cur"))
		return ;;
	--since | --base | --upstream)
		COMPREPLY=($(compgen -W "$(_timerconv_revs)" -- "$cur"))
		return ;;
	-j | --jobs | --timeout | --branch)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_timerconv_options "$cmd")" \
			-- "$cur"))
		return
	fi
	# PATHs: directories, and the C files in them
	COMPREPLY=($(compgen -d -- "$cur") $(compgen -f -X '!*.[ch]' -- "$cur"))
}

complete -o filenames -F _timerconv timerconv
