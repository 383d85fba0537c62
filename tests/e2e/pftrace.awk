# SPDX-License-Identifier: GPL-3.0-or-later
# pftrace.awk - reads what `protoc --decode=perfetto.protos.Trace` prints of a Perfetto trace
# and replays it as Perfetto's trace processor would for the parts cygtrace writes: sequences
# with their interned names, defaults (track, clock) and incremental clocks, tracks and their
# slices. Prints one line per fact, for the tests to check:
#   T UUID NAME             a track's descriptor (thread_name, or name)
#   P UUID PID NAME         a process's descriptor (its process_name, may be empty)
#   O UUID PID              the process a track is of (a thread's pid, its parent's, its own)
#   B UUID DEPTH TIME NAME  a slice begins, DEPTH slices deep on its track, at TIME ns
#   E UUID DEPTH TIME NAME  ... ends (the name its begin had)
#   I UUID TIME NAME        an instant event
#   A UUID NAME KEY=VALUE   a debug annotation of a begin or end of slice NAME
#   S UUID NAME FILE:LINE   a begin's source location
#   ERR WHAT                what a reader would reject: an end with no slice open, an iid the
#                           sequence did not intern, an end before its begin, a time that
#                           goes back on a sequence's clock, a packet without a sequence
#   OPEN UUID N             (at the end) N slices left open on a track
function reset_pkt() {
    delete f; delete names; delete dnames; delete srcs; delete ann_k; delete ann_v
    nann = 0; cur_iid = ""; cur_name = ""; cur_file = ""; cur_line = ""
}
function unq(s) {
    sub(/^"/, "", s); sub(/"$/, "", s)
    gsub(/\\"/, "\"", s); gsub(/\\\\/, "\\", s) # protoc's escapes of " and \
    return s
}
BEGIN { depth = 0; reset_pkt() }
/{$/ {
    key = $1; path[++depth] = key
    if (key == "event_names" || key == "source_locations" || key == "debug_annotation_names" ||
        key == "debug_annotations") { cur_iid = ""; cur_name = ""; cur_file = ""; cur_line = "" }
    next
}
/^ *}$/ {
    key = path[depth]
    if (key == "event_names") names[cur_iid] = cur_name
    else if (key == "debug_annotation_names") dnames[cur_iid] = cur_name
    else if (key == "source_locations") srcs[cur_iid] = cur_file ":" cur_line
    else if (key == "debug_annotations") { ann_k[++nann] = cur_iid; ann_v[nann] = cur_name }
    else if (key == "packet") packet()
    delete path[depth--]
    next
}
{
    k = $1; sub(/:$/, "", k)
    v = $0; sub(/^ *[a-z_]+: /, "", v)
    p = path[depth]
    if (p == "event_names" || p == "debug_annotation_names" || p == "source_locations") {
        if (k == "iid") cur_iid = v
        else if (k == "name") cur_name = unq(v)
        else if (k == "file_name") cur_file = unq(v)
        else if (k == "line_number") cur_line = v
    } else if (p == "debug_annotations") {
        if (k == "name_iid") cur_iid = v
        else if (k == "string_value") cur_name = unq(v)
    } else if (p == "clocks") {
        if (k == "clock_id") f["clk_id"] = v
        else if (k == "timestamp" && f["clk_id"] == 64) f["snap"] = v
    } else if (p == "track_event_defaults" && k == "track_uuid") {
        f["def_track"] = v
    } else if (p == "trace_packet_defaults" && k == "timestamp_clock_id") {
        f["def_clock"] = v
    } else if (p == "track_event" || p == "packet" || p == "track_descriptor" || p == "thread" ||
               p == "process") {
        f[p "." k] = v
    }
}
function packet(   seq, t, tr, nm, d, i) {
    seq = f["packet.trusted_packet_sequence_id"]
    if (seq == "") { print "ERR packet without a sequence"; reset_pkt(); return }
    if (f["packet.sequence_flags"] % 2 == 1) {
        for (i in seqnames) { split(i, a, SUBSEP); if (a[1] == seq) delete seqnames[i] }
        for (i in seqd) { split(i, a, SUBSEP); if (a[1] == seq) delete seqd[i] }
        for (i in seqsrc) { split(i, a, SUBSEP); if (a[1] == seq) delete seqsrc[i] }
    }
    if ("def_track" in f) deftrack[seq] = f["def_track"]
    if ("def_clock" in f) defclock[seq] = f["def_clock"]
    if ("snap" in f) clk[seq] = f["snap"]
    for (i in names) seqnames[seq, i] = names[i]
    for (i in dnames) seqd[seq, i] = dnames[i]
    for (i in srcs) seqsrc[seq, i] = srcs[i]
    if ("track_descriptor.uuid" in f) {
        nm = f["thread.thread_name"] != "" ? f["thread.thread_name"] : f["track_descriptor.name"]
        print "T", f["track_descriptor.uuid"], unq(nm)
        if ("process.pid" in f) {
            procpid[f["track_descriptor.uuid"]] = f["process.pid"]
            print "P", f["track_descriptor.uuid"], f["process.pid"], unq(f["process.process_name"])
        }
        pid = "thread.pid" in f ? f["thread.pid"] : "process.pid" in f ? f["process.pid"] : \
              procpid[f["track_descriptor.parent_uuid"]]
        print "O", f["track_descriptor.uuid"], pid
    }
    if (!("track_event.type" in f)) { reset_pkt(); return }
    t = f["packet.timestamp"]
    if (f["packet.timestamp_clock_id"] == "" && defclock[seq] == 64) {
        if (t < 0) print "ERR a negative delta on sequence " seq
        clk[seq] += t; t = clk[seq]
    }
    tr = f["track_event.track_uuid"] != "" ? f["track_event.track_uuid"] : deftrack[seq]
    if (tr == "") print "ERR an event without a track"
    nm = f["track_event.name"] != "" ? unq(f["track_event.name"]) : ""
    if (f["track_event.name_iid"] != "") {
        if (!((seq, f["track_event.name_iid"]) in seqnames))
            print "ERR name iid " f["track_event.name_iid"] " not interned on sequence " seq
        nm = seqnames[seq, f["track_event.name_iid"]]
    }
    type = f["track_event.type"]
    if (type == "TYPE_SLICE_BEGIN") {
        d = ++open[tr]; stack[tr, d] = nm; since[tr, d] = t
        printf "B %s %d %.0f %s\n", tr, d, t, nm
        if (f["track_event.source_location_iid"] != "")
            print "S", tr, nm, seqsrc[seq, f["track_event.source_location_iid"]]
    } else if (type == "TYPE_SLICE_END") {
        if (open[tr] < 1) { print "ERR an end with no slice open on track " tr; reset_pkt(); return }
        d = open[tr]--; nm = stack[tr, d]
        if (t < since[tr, d]) print "ERR " nm " ends before it begins on track " tr
        printf "E %s %d %.0f %s\n", tr, d, t, nm
    } else if (type == "TYPE_INSTANT") {
        printf "I %s %.0f %s\n", tr, t, nm
    }
    for (i = 1; i <= nann; i++) {
        if (!((seq, ann_k[i]) in seqd)) print "ERR annotation name iid " ann_k[i] " not interned"
        print "A", tr, nm, seqd[seq, ann_k[i]] "=" ann_v[i]
    }
    reset_pkt()
}
END { for (tr in open) if (open[tr]) print "OPEN", tr, open[tr] }
