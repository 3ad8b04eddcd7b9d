# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by timerconv's semantic patches.

The driver (tool/) runs spatch on one file at a time with the combined
rules and, through the environment:

  TIMERCONV_CALLBACKS  file listing the callback names of interest
  TIMERCONV_PLAN       the plan for this file (patch mode), JSON

In facts mode the rules print one JSON record per line, prefixed with
"TIMERCONV ", to stdout; the driver parses nothing else.  In patch mode
they rewrite exactly what the plan names, keyed by "line:column" of the
construct's first token, and print a "done" record for each rewrite.
"""

import json
import os
import sys

_plan = None
_callbacks = None


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


def planned(section, p):
    """The plan entry for the construct at position p, or None."""
    return _load_plan().get(section, {}).get(key(p))


def renames():
    return _load_plan().get("renames", {})


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
    rec = {"kind": kind}
    if p is not None:
        rec["line"] = int(p[0].line)
        rec["col"] = int(p[0].column)
        rec["func"] = p[0].current_element
    rec.update(fields)
    sys.stdout.write("TIMERCONV " + json.dumps(rec) + "\n")


def extent(p):
    """Lines of the function containing position p."""
    return {"first": int(p[0].current_element_line),
            "last": int(p[0].current_element_line_end)}


def done(section, p):
    emit("done", section=section, at=key(p))
