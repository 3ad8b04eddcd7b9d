# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by timerconv's semantic patches.

The driver (tool/) runs spatch on batches of files, one file per group
(--file-groups), with the combined rules and, through the environment:

  TIMERCONV_CALLBACKS  file listing the callback names of interest
  TIMERCONV_PLAN       the plan (patch mode), JSON: {"files": {path: plan}}
  TIMERCONV_SPEC       a Unix socket (facts and patch at once): the plan
                       of a file is asked of the driver, with the file's
                       facts, when a patch rule first needs it

In facts mode the rules print one JSON record per line, prefixed with
"TIMERCONV " and naming the file it is about, to stdout; the driver parses
nothing else.  In patch mode they rewrite exactly what the plan names for
the file at hand and print a "done" record for each rewrite.

The plan names a construct by text, not by position: the enclosing
function, the API name and the operands as spatch prints them, joined by
"|".  Positions would not do: once a rule has changed a function, spatch
1.1.1 reports wrong lines for what later rules match in it.
"""

import json
import os
import re
import socket
import sys

_plan = None
_callbacks = None
_cocci = None
_spec_path = os.environ.get("TIMERCONV_SPEC")
# TIMERCONV_SPEC: the connection, and the file at hand with its records
# and the plan the driver gave for it
_spec = None
_spec_file = None
_spec_records = []
_spec_plan = None


def init(cocci):
    """Keep spatch's cocci object: it knows the file being processed."""
    global _cocci
    _cocci = cocci


def current():
    """The file of the group being processed (one file per group)."""
    files = _cocci.files() if _cocci is not None else []
    return files[0] if files else None


def _load_plan():
    global _plan
    if _plan is None:
        path = os.environ.get("TIMERCONV_PLAN")
        _plan = {}
        if path:
            with open(path) as f:
                _plan = json.load(f)
    return _plan


def key(p):
    return "%s:%s" % (p[0].line, p[0].column)


# C's blanks, which the driver's plan_key() folds too (text_normalize(),
# tool/lib/util.c): str.split() would also fold U+00A0, U+2028, U+0085
# and \x1c-\x1f, which in C can only be inside a literal or a comment,
# and the driver's key and ours would differ (tests/unit/test_key.c).
_BLANKS = re.compile(r"[ \t\n\r\f\v]+")


def name(*parts):
    """The plan's name for a construct: its parts, runs of blanks folded
    to one space, joined by "|"."""
    return "|".join(_BLANKS.sub(" ", str(x)).strip(" ") for x in parts)


def _spec_at(f):
    """Start on file f: its records so far are the ones to send."""
    global _spec_file, _spec_records, _spec_plan
    if f != _spec_file:
        _spec_file, _spec_records, _spec_plan = f, [], None


def _recv_exact(n):
    data = b""
    while len(data) < n:
        chunk = _spec.recv(n - len(data))
        if not chunk:
            raise IOError("timerconv: the driver closed the plan socket")
        data += chunk
    return data


def _ask_plan(f):
    """The driver's plan for f, given f's facts: "<length>\\n<text>" each
    way, the request being the file's name on a line, then its records."""
    global _spec
    if _spec is None:
        _spec = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        _spec.connect(os.environ["TIMERCONV_SPEC"])
    body = (f + "\n" + "".join(_spec_records)).encode()
    _spec.sendall(b"%d\n" % len(body) + body)
    head = b""
    while not head.endswith(b"\n"):
        head += _recv_exact(1)
    plan = json.loads(_recv_exact(int(head)).decode())
    if plan is None:
        raise KeyError("timerconv: no plan for %s" % f)
    return plan


def _file_plan():
    global _spec_plan
    if _spec_path:
        f = current()
        _spec_at(f)
        if _spec_plan is None:
            _spec_plan = _ask_plan(f)
        return _spec_plan
    plan = _load_plan()
    if "files" in plan:
        return plan["files"].get(current(), {})
    return plan


def planned(section, *parts):
    """The plan entry for the construct named by parts, or None."""
    return _file_plan().get(section, {}).get(name(*parts))


def called(fn):
    """Whether the plan rewrites a direct call of fn in this file."""
    calls = _file_plan().get("calls", {})
    return any(k.split("|", 2)[1:2] == [fn] for k in calls)


def plans(fn):
    """Whether the plan rewrites fn's definition or a prototype of it in
    this file: the patch rules look no further at other functions."""
    plan = _file_plan()
    return fn in plan.get("callbacks", {}) or fn in plan.get("protos", {})


def declares_above(fn):
    """Whether the plan puts a callback's prototype above function fn."""
    return fn in _file_plan().get("decls", {})


def keeps_in(tag):
    """Whether the plan adds a member to struct tag in this file."""
    return any(k.split("|", 1)[0] == tag
               for k in _file_plan().get("members", {}))


def keeps_beside(name):
    """Whether the plan puts a static beside file-scope timer name."""
    return name in _file_plan().get("statics", {})


def kept_among(p):
    """The timer whose static the plan puts after the file-scope
    declaration at p, one of several timers it declares, or None.  (A
    timer declared alone is the other rule's.)"""
    if p[0].current_element != "something_else":
        return None
    end = int(p[0].line_end)
    kept = [n for n, e in _file_plan().get("statics", {}).items()
            if e.get("among") == end]
    return kept[0] if len(kept) == 1 else None


def renames():
    return _file_plan().get("renames", {})


def is_callback(name):
    global _callbacks
    if _callbacks is None:
        _callbacks = set()
        path = os.environ.get("TIMERCONV_CALLBACKS")
        if path:
            with open(path) as f:
                _callbacks = set(f.read().split())
    return name in _callbacks


def emit(kind, p=None, **fields):
    rec = {"kind": kind, "file": current()}
    if p is not None:
        rec["line"] = int(p[0].line)
        rec["col"] = int(p[0].column)
        rec["func"] = p[0].current_element
    rec.update(fields)
    line = "TIMERCONV " + json.dumps(rec) + "\n"
    sys.stdout.write(line)
    if _spec_path:
        _spec_at(rec["file"])
        _spec_records.append(line)


def extent(p):
    """Lines of the function containing position p."""
    return {"first": int(p[0].current_element_line),
            "last": int(p[0].current_element_line_end)}


def done(section, *parts):
    emit("done", section=section, name=name(*parts))
