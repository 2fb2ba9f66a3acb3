"""The files of froggyd's FroggySession lie in floors, as
froggyd/froggy-session-private.h draws them: a file calls functions of its
own floor or of the floors below, never of a floor above, and the files
of one floor use one another one way only (the calls between files make
no cycle).  This reads the sources, so a change that makes a lower floor
call back up fails here, not in a reviewer's head.
"""

import os
import re

from guest import TOP

FROGGYD = os.path.join(TOP, "froggyd")
FLOOR_NAMES = ["below", "bottom", "middle", "top"]


def floors():
    """{file: floor number} from the map in froggy-session-private.h."""
    with open(os.path.join(FROGGYD, "froggy-session-private.h")) as header:
        text = header.read()
    layout = {}
    floor = None
    for line in text[:text.index("*/")].splitlines():
        match = re.match(r"^ \*   (\w+)?\s+(froggy-session[\w-]*\.c)", line)
        if not match:
            continue
        if match.group(1):
            floor = FLOOR_NAMES.index(match.group(1))
        layout[match.group(2)] = floor
    return layout


def without_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def definitions(layout):
    """{function name: file} for every function the session's files define."""
    defined = {}
    for name in layout:
        with open(os.path.join(FROGGYD, name)) as source:
            text = without_comments(source.read())
        for match in re.finditer(r"^(?:static )?\w[\w \*]*\n(\w+) \([^;]*?\)\n\{", text, re.M):
            defined[match.group(1)] = name
    return defined


def calls(layout, defined):
    """{file: {file it calls into}}; a struct member of the same name as a
    function (self->resync_schedule) is not a call of it."""
    edges = {}
    for name in layout:
        with open(os.path.join(FROGGYD, name)) as source:
            text = without_comments(source.read())
        edges[name] = {other for function, other in defined.items()
                       if other != name and
                       re.search(r"(?<![\w>.])" + function + r"\b", text)}
    return edges


def test_the_floor_map_names_every_session_file():
    layout = floors()
    on_disk = {name for name in os.listdir(FROGGYD)
               if name.startswith("froggy-session") and name.endswith(".c")}
    assert set(layout) == on_disk
    assert layout["froggy-session.c"] == FLOOR_NAMES.index("top")
    assert layout["froggy-session-threads.c"] == FLOOR_NAMES.index("bottom")


def test_no_file_calls_up_a_floor():
    layout = floors()
    edges = calls(layout, definitions(layout))
    upward = [(caller, callee) for caller, callees in edges.items() for callee in callees
              if layout[callee] > layout[caller]]
    assert upward == []
    # Nothing below the public API calls it.
    assert [caller for caller, callees in edges.items()
            if "froggy-session.c" in callees] == []


def test_the_calls_between_files_make_no_cycle():
    layout = floors()
    edges = calls(layout, definitions(layout))
    done, on_path = set(), []

    def visit(name):
        if name in on_path:
            return on_path[on_path.index(name):] + [name]
        if name in done:
            return None
        on_path.append(name)
        for callee in sorted(edges[name]):
            cycle = visit(callee)
            if cycle:
                return cycle
        on_path.pop()
        done.add(name)
        return None

    for name in sorted(edges):
        assert visit(name) is None, "a cycle: " + " -> ".join(visit(name) or [])
