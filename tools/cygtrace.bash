# SPDX-License-Identifier: MIT
# cygtrace.bash - bash completion for cygtrace: its commands, each command's options (read from
# the program's own --help, so they never go stale), the values of the options that take a
# choice, and file names for the rest (ELF files, dumps, devices). Installed as
# /usr/share/bash-completion/completions/cygtrace; or: source tools/cygtrace.bash

# The commands of `cygtrace --help`: the lines "  NAME   what it does".
_cygtrace_commands()
{
    "$1" --help 2>/dev/null | awk '/^  [a-z]/ { print $1 }'
}

# The options of `cygtrace COMMAND --help`: "--name" or "--name=" for one that takes a value.
_cygtrace_options()
{
    "$1" "$2" --help 2>/dev/null |
        grep -oE '(^|[ ,])--[a-z][a-z0-9-]*(\[?=)?' | sed -E 's/^[ ,]//; s/\[=$/=/' | sort -u
}

# The choices an option's help lists as "--opt=a|b|c" (or the one line per value of --format).
_cygtrace_choices()
{
    "$1" "$2" --help 2>/dev/null |
        grep -oE -- "$3=[a-z0-9|]+" | sed "s/^$3=//" | tr '|' '\n' | sort -u
    # report's --sort=KEY lists its keys in words: "total (default), self, calls, ..."
    [ "$3" = --sort ] && "$1" "$2" --help 2>/dev/null |
        awk '$1 ~ /^--sort=/ { for (i = 2; i <= NF; i++) if ($i !~ /[()]/) { sub(/,$/, "", $i); print $i } }'
}

_cygtrace()
{
    local cur prev cmd prog i words
    cur=${COMP_WORDS[COMP_CWORD]}
    prog=${COMP_WORDS[0]}
    COMPREPLY=()
    cmd=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        -*) ;;
        *) cmd=${COMP_WORDS[i]}; break ;;
        esac
    done
    if [ -z "$cmd" ]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_cygtrace_commands "$prog")" -- "$cur")
        fi
        return 0
    fi
    # "--opt=VALUE": bash splits at "=" when COMP_WORDBREAKS has it (the default)
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    if [ "$cur" = "=" ] || [ "$prev" = "=" ]; then
        local opt val=""
        if [ "$cur" = "=" ]; then opt=$prev; else opt=${COMP_WORDS[COMP_CWORD - 2]}; val=$cur; fi
        words=$(_cygtrace_choices "$prog" "$cmd" "$opt")
        if [ -n "$words" ]; then
            mapfile -t COMPREPLY < <(compgen -W "$words" -- "$val")
        else
            mapfile -t COMPREPLY < <(compgen -f -- "$val")
        fi
        return 0
    fi
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$(_cygtrace_options "$prog" "$cmd")" -- "$cur")
        # an option that takes a value: no space after its "="
        [ "${#COMPREPLY[@]}" -eq 1 ] && [[ ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
        return 0
    fi
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    compopt -o filenames 2>/dev/null
    return 0
}
complete -F _cygtrace cygtrace
