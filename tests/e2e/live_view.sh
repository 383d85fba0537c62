#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# live_view.sh - the ncurses live view, driven for real in tmux: "cygtrace live --follow" on the
# ring of the ticker example while it runs. The tree and the table show its functions, the keys
# react (pause, Tab, the graph pane, help, search, fold, filter, sort), a resize redraws cleanly (a tiny window
# too), q quits with status 0 and gives the terminal back as it was. Without a terminal, live
# refuses with one line that points at --plain.
#
# tmux runs on a private socket (cygtest-PID) with no configuration; its server, and the
# ticker, are killed however the script ends. Every wait has a time limit.
set -u
. "$(dirname "$0")/lib.sh"

ELF=$BUILD/examples/ticker
need "$CT" "$ELF"
if ! command -v tmux >/dev/null; then
    fail "$E2E_NAME-prerequisites" "tmux is not installed"
    finish
fi

SOCK=cygtest-$$
TMUX_CMD=(timeout 10 tmux -L "$SOCK" -f /dev/null)
TICKER_PID=
cleanup() {
    tmux -L "$SOCK" kill-server 2>/dev/null
    [ -n "$TICKER_PID" ] && kill "$TICKER_PID" 2>/dev/null
}
trap cleanup EXIT

# Without a terminal: one line, before anything else happens.
expect_error notty 1 'not a terminal; use --plain' "$CT" live --follow="$T/nothing" "$ELF"

# The program: 1000 rounds a second for 60 s (it is killed at the end).
CYGTRACE_OUT=$T/ring timeout 90 "$ELF" 60 >"$T/ticker.out" 2>&1 </dev/null &
TICKER_PID=$!
for ((i = 0; i < 100; i++)); do
    [ -s "$T/ring" ] && break
    sleep 0.1
done
if [ ! -s "$T/ring" ]; then
    fail ticker-starts "no ring at $T/ring after 10 s: $(head -c 200 "$T/ticker.out")"
    finish
fi

# screen: the pane's text now; screen_e: with attributes (escape sequences).
screen() {
    "${TMUX_CMD[@]}" capture-pane -p -t v >"$T/screen" 2>/dev/null
    cat "$T/screen"
}
screen_e() {
    "${TMUX_CMD[@]}" capture-pane -e -p -t v 2>/dev/null
}
# cursor_line: the text of the lines below the tree header drawn in reverse video from their
# first character on (the cursor line of the focused pane). tmux writes only the changes of
# attributes, so the state is carried from one line to the next.
cursor_line() {
    screen_e | awk 'BEGIN { rev = 0 }
    {
        line = $0; out = ""; first = -1
        while (match(line, /\033\[[0-9;]*m/)) {
            pre = substr(line, 1, RSTART - 1)
            if (pre != "" && first < 0) first = rev
            out = out pre
            n = split(substr(line, RSTART + 2, RLENGTH - 3), c, ";")
            if (n == 0) rev = 0
            for (i = 1; i <= n; i++) {
                if (c[i] == 7) rev = 1
                else if (c[i] == 0 || c[i] == 27 || c[i] == "") rev = 0
            }
            line = substr(line, RSTART + RLENGTH)
        }
        if (line != "" && first < 0) first = rev
        if (NR > 2 && first == 1) print out line
    }'
}
keys() {
    "${TMUX_CMD[@]}" send-keys -t v "$@"
}
pane_fmt() {
    "${TMUX_CMD[@]}" display-message -p -t v "$1" 2>/dev/null
}

# wait_screen REGEX [SECONDS]: polls the pane until a line matches the extended REGEX.
wait_screen() {
    local i
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        screen | grep -Eq -- "$1" && return 0
        sleep 0.1
    done
    return 1
}

# wait_no_screen REGEX [SECONDS]: polls until no line matches.
wait_no_screen() {
    local i
    for ((i = 0; i < ${2:-10} * 10; i++)); do
        screen | grep -Eq -- "$1" || return 0
        sleep 0.1
    done
    return 1
}

# shows the pane, indented, when a test failed
show() {
    awk '{ l[NR] = $0 } /./ { n = NR } END { for (i = 1; i <= n; i++) print "    | " l[i] }' \
        "$T/screen" | head -50
}

# tree_pane: the lines between the tree's header and the table's header.
tree_pane() {
    awk '/^[> ] +(CTX +)?DURATION  FUNCTION/ { on = 1; next }
         /^[> ] +CALLS +TOTAL/ { on = 0 }
         on' "$T/screen"
}

# layout_check W H: the screen (already captured) is the whole layout and nothing else: the
# status line first, each pane header once (the table only when there is room for it), every
# tree and table line well-formed (in a narrow window lines are cut: only how they start), the
# key line last, no line wider than W, H lines at most. Prints one line per problem.
layout_check() {
    awk -v W="$1" -v H="$2" -v strict=$(($1 >= 80)) -v want_table=$(($2 - 2 >= 8)) '
        function bad(why) { print "line " NR ": " why ": " $0 }
        BEGIN {
            dur = "^ +([0-9.]+ (us|ms|s|ticks))? +"
            name = "[A-Za-z_][A-Za-z0-9_.+]*"
            full = dur "(" name "\\(\\)( \\{( \\.\\.\\. \\})?|;)?|\\} /\\* " name " \\*/)( +\\([a-z ]+\\))?$"
            start = dur "(\\[[0-9]+\\] )?([A-Za-z_]|\\} )"
            t = " +[0-9.]+ (us|ms|s)"
            row = "^ +[0-9]+[MG]?" t t t "  " name "$"
        }
        length($0) > W { bad("wider than " W) }
        NR == 1 && !/^ (RUNNING|STOPPED|FROZEN|FULL|waiting)/ { bad("not the status line") }
        /DURATION  FUNCTION/ { tree++; pane = "tree"; next }
        /CALLS +TOTAL +SELF +MAX  FUNCTION/ { table++; pane = "table"; next }
        /^q quit  p pause/ { keyline = NR; pane = "end"; next }
        NR == 1 || /^$/ { next }
        pane == "tree" && !($0 ~ (strict ? full : start)) { bad("not a tree line") }
        pane == "table" && !($0 ~ (strict ? row : "^ +[0-9]+")) { bad("not a table line") }
        pane == "end" { bad("below the key line") }
        END {
            if (tree != 1) print "tree header " tree + 0 " times"
            if (table != want_table) print "table header " table + 0 " times"
            if (keyline != NR) print "the key line is not the last"
            if (NR > H) print NR " lines for a " H "-line window"
        }' "$T/screen"
}

# A shell in a 100x30 pane runs live, then says how it ended and how the tty is.
cat >"$T/session.sh" <<EOF
stty -g >'$T/stty.before'
cd '$T' && '$CT' live --follow=ring '$ELF'
echo live-exit=\$?
stty -g >'$T/stty.after'
EOF
"${TMUX_CMD[@]}" new-session -d -s v -x 100 -y 30 "env TERM=screen PS1='$ ' bash --norc --noprofile -i" ||
    { fail tmux-starts "tmux new-session failed"; finish; }
wait_screen '^\$' 10 || { fail shell-starts "no prompt"; show; finish; }
keys ". '$T/session.sh'" Enter

if wait_screen '^ RUNNING \| [0-9.]+k? ev/s .* \| ring up$' 10 && [ "$(pane_fmt '#{alternate_on}')" = 1 ]; then
    pass view-starts
else
    fail view-starts "no status line 'RUNNING | ... | ring up' on the alternate screen"
    show
fi

# The durations are corrected for the hooks' cost the runtime measured, as tree and --plain
# have them: the tree pane's header says so (tests/check_vlines.c checks the times).
if wait_screen '^[> ] +DURATION  FUNCTION   # durations corrected for hook cost: [0-9.]+ ns per event \(measured' 5; then
    pass header-hook-cost
else
    fail header-hook-cost "the tree header does not say 'durations corrected for hook cost: N ns per event (measured'"
    show
fi

# The tree grows with the ticker's calls; the table names them with numbers.
if wait_screen '^ +[0-9.]+ us +sensor_read\(\);$' 10 && wait_screen '^ +[0-9.]+ us +filter_run\(\) \{$' 5 &&
    wait_screen '^ +\} /\* control_round \*/$' 5; then
    pass tree-shows-calls
else
    fail tree-shows-calls "no 'sensor_read();', 'filter_run() {' and '} /* control_round */' lines"
    show
fi
row_re='^ +[0-9]+ +[0-9.]+ (us|ms|s) +[0-9.]+ (us|ms|s) +[0-9.]+ (us|ms|s)  '
if wait_screen "$row_re"'control_round$' 5 && wait_screen "$row_re"'filter_step$' 5 &&
    screen | grep -Eq 'sorted by total'; then
    pass table-shows-functions
else
    fail table-shows-functions "no table rows for control_round and filter_step, sorted by total"
    show
fi
sleep 1.2 # a second of samples for the rates
screen >/dev/null
if grep -Eq '\| [1-9][0-9.]*k? ev/s' "$T/screen" && grep -Eq 'lost 0 target 0 link' "$T/screen"; then
    pass status-rates
else
    fail status-rates "no events/s above 0 or a loss in the status line"
    show
fi
layout_check 100 30 >"$T/layout"
check layout-100x30 "$(head -3 "$T/layout" | tr '\n' '|')" test ! -s "$T/layout"

# Pause: the screen stands still while the ticker runs; the counting goes on behind it.
calls_of() { # the calls column of a table row
    grep -E "$row_re$1\$" "$T/screen" | awk '{ print $1 }' | head -1
}
keys p
if wait_screen '^ RUNNING  PAUSED \|' 5 && wait_screen 'FUNCTION   \[PAUSED\]' 5; then
    pass pause-shows-paused
else
    fail pause-shows-paused "no PAUSED in the status line and the tree header"
    show
fi
screen >/dev/null
sed 1d "$T/screen" >"$T/paused.1"
before=$(calls_of control_round)
sleep 1
screen >/dev/null
sed 1d "$T/screen" >"$T/paused.2"
if same "$T/paused.1" "$T/paused.2"; then
    pass pause-freezes
else
    fail pause-freezes "the panes changed while paused"
fi
keys p
wait_no_screen 'PAUSED' 5
sleep 0.5
screen >/dev/null
after=$(calls_of control_round)
if [ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt $((before + 200)) ]; then
    pass resume-counted-meanwhile
else
    fail resume-counted-meanwhile "control_round calls $before before the pause, $after after"
    show
fi

# Tab: the table gets the focus mark, then the tree again.
keys Tab
if wait_screen '^>  +CALLS +TOTAL' 5 && screen | grep -Eq '^  +DURATION  FUNCTION'; then
    pass tab-focus-table
else
    fail tab-focus-table "the table header has no '>' focus mark"
    show
fi
# C, the table focused: the graph of the function under the cursor takes the table's place,
# and fills as calls come (its calls in brackets); C again gives the table back.
keys C
if wait_screen 'GRAPH of [A-Za-z_]' 5 && wait_screen ' : \([0-9]+\) [A-Za-z_]' 10; then
    pass graph-pane
else
    fail graph-pane "no graph pane after C, or no call in it"
    show
fi
keys C
check graph-pane-closes "the table does not come back after a second C" \
    wait_screen '^>  +CALLS +TOTAL' 5
keys Tab
wait_screen '^> +DURATION  FUNCTION' 5
check tab-focus-tree "the tree header has no '>' focus mark after a second Tab" \
    grep -Eq '^> +DURATION  FUNCTION' "$T/screen"

# Sort: s goes on to self, then max.
keys s
check sort-self "the table does not say 'sorted by self' after s" wait_screen 'sorted by self' 5
keys s
check sort-max "the table does not say 'sorted by max' after s" wait_screen 'sorted by max' 5

# Help: ? shows every key; any key closes it.
keys '?'
if wait_screen 'cygtrace live: keys' 5 && grep -q 'pause / resume' "$T/screen" &&
    grep -q 'q             quit' "$T/screen"; then
    pass help-shows
else
    fail help-shows "no help overlay after ?"
    show
fi
keys x
check help-closes "the help stays after a key" wait_no_screen 'cygtrace live: keys' 5

# Search (paused, so that the lines stay): the cursor line (reverse video) is a match, and the
# pane no longer follows the newest line.
keys p
wait_screen 'PAUSED' 5
keys / filter_ru Enter
sleep 0.5
cursor=$(cursor_line)
if [[ $cursor =~ ^\ +[0-9.]+\ us\ +filter_run\(\)\ \{$ ]] && screen | grep -q 'not following'; then
    pass search-finds
else
    fail search-finds "the cursor line after /filter_ru is '$cursor'"
    show
fi
# Fold the call under the cursor: its callees go, the line says so.
keys Enter
if wait_screen '^ +[0-9.]+ us +filter_run\(\) \{ \.\.\. \}$' 5; then
    pass fold
else
    fail fold "no 'filter_run() { ... }' line after Enter on it"
    show
fi
keys c
check unfold "the fold stays after c" wait_no_screen 'filter_run\(\) \{ \.\.\. \}' 5
keys n
sleep 0.5
next_cursor=$(cursor_line)
if [[ $next_cursor =~ filter_run\(\)\ \{$ ]]; then
    pass search-next
else
    fail search-next "the cursor line after n is '$next_cursor'"
    show
fi
keys / no_such_function Enter
check search-not-found "no 'not found' message" wait_screen '^not found: no_such_function' 5
check message-expires "the 'not found' message stays" wait_no_screen '^not found:' 6
keys End p
wait_no_screen 'PAUSED' 5

# Filter: only calls inside functions whose name holds the text; an empty filter clears it.
keys f sensor Enter
sleep 0.5
screen >/dev/null
if grep -q 'filter: sensor' "$T/screen" && [ "$(tree_pane | grep -c .)" -gt 3 ] &&
    ! tree_pane | grep -v '^$' | grep -vq 'sensor_read'; then
    pass filter-only-matching
else
    fail filter-only-matching "tree lines other than sensor_read under 'filter: sensor'"
    show
fi
keys f BSpace BSpace BSpace BSpace BSpace BSpace Enter
if wait_no_screen 'filter: ' 5 && wait_screen '^ +[0-9.]+ us +filter_step\(\);$' 5; then
    pass filter-cleared
else
    fail filter-cleared "the filter stays after an empty one"
    show
fi

# Resize: smaller, tiny, larger; each time a clean layout (no leftovers of the old one).
resize() {
    "${TMUX_CMD[@]}" resize-window -t v -x "$1" -y "$2" >/dev/null 2>&1
}
resize 80 24
sleep 0.8
screen >/dev/null
layout_check 80 24 >"$T/layout"
check resize-80x24 "$(head -3 "$T/layout" | tr '\n' '|')" test ! -s "$T/layout"
resize 12 3
if wait_screen '^window too' 5; then
    pass resize-tiny
else
    fail resize-tiny "no 'window too small' in a 12x3 window"
    show
fi
resize 30 8
sleep 0.8
screen >/dev/null
layout_check 30 8 >"$T/layout"
check resize-30x8 "$(head -3 "$T/layout" | tr '\n' '|')" test ! -s "$T/layout"
resize 132 43
sleep 0.8
screen >/dev/null
layout_check 132 43 >"$T/layout"
if [ ! -s "$T/layout" ] && [ "$(tree_pane | grep -c .)" -gt 20 ]; then
    pass resize-132x43
else
    fail resize-132x43 "$(head -3 "$T/layout" | tr '\n' '|')"
    show
fi

# q: the shell is back, the status 0, the alternate screen left, the tty as it was.
keys q
if wait_screen '^live-exit=0$' 10; then
    pass quit-status-0
else
    fail quit-status-0 "no 'live-exit=0' after q"
    show
fi
for ((i = 0; i < 50; i++)); do
    [ -s "$T/stty.after" ] && break
    sleep 0.1
done
if [ "$(pane_fmt '#{alternate_on}')" = 0 ] && [ "$(pane_fmt '#{cursor_flag}')" = 1 ] &&
    [ "$(pane_fmt '#{keypad_cursor_flag}')" = 0 ] && ! grep -q 'CALLS' "$T/screen"; then
    pass quit-restores-screen
else
    fail quit-restores-screen "alternate_on $(pane_fmt '#{alternate_on}'), cursor_flag \
$(pane_fmt '#{cursor_flag}'), keypad_cursor_flag $(pane_fmt '#{keypad_cursor_flag}')"
    show
fi
if [ -s "$T/stty.before" ] && same "$T/stty.before" "$T/stty.after"; then
    pass quit-restores-tty
else
    fail quit-restores-tty "stty -g differs before and after"
fi

# --raw-times: the times as recorded, and the header says nothing of the hooks' cost.
keys "cd '$T' && '$CT' live --raw-times --follow=ring '$ELF'; echo raw-exit=\$?" Enter
if wait_screen '^ +[0-9.]+ us +sensor_read\(\);$' 10 && wait_screen '^[> ] +DURATION  FUNCTION' 5 &&
    ! grep -q 'durations corrected' "$T/screen"; then
    pass raw-times-no-note
else
    fail raw-times-no-note "no tree, or a hook-cost note, with --raw-times"
    show
fi
keys q
check raw-times-quits "no 'raw-exit=0' after q" wait_screen '^raw-exit=0$' 10

finish
