"""Checks the snapshots of a run on several ranks against the run in one process: the .pvd
lists one .pvtu per frame, and each .pvtu indexes pieces that together hold every grain of the
one-process .vtu of that frame exactly once, with its position bit for bit.
Usage: pieces.py ONE_PROCESS_FOLDER RANKS_FOLDER (Python's standard library only)."""
import base64
import pathlib
import re
import sys

ARRAY = re.compile(r'<DataArray type="(\w+)" Name="(\w+)"[^>]*format="binary">([^<]*)</DataArray>')


def grains(vtu):
    """(id, the position's 24 bytes) of every grain of a .vtu."""
    arrays = {m[2]: base64.b64decode(m[3])[8:] for m in ARRAY.finditer(vtu.read_text())}
    ids, points = arrays["id"], arrays["Points"]
    n = len(ids) // 8
    return [(int.from_bytes(ids[8 * k:8 * k + 8], "little", signed=True),
             points[24 * k:24 * k + 24]) for k in range(n)]


one, ranks = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
listed = re.findall(r'file="([^"]+)"', (ranks / "particles.pvd").read_text())
assert listed and all(f.endswith(".pvtu") for f in listed), listed
for index in listed:
    pvtu = ranks / index
    pieces = re.findall(r'<Piece Source="([^"]+)"/>', pvtu.read_text())
    got = sorted(g for p in pieces for g in grains(pvtu.parent / p))
    expected = sorted(grains(one / index.replace(".pvtu", ".vtu")))
    assert got == expected, f"{index}: {len(got)} grains in {len(pieces)} pieces, {len(expected)} in one process"
print(f"mpi check: {len(listed)} snapshots in {len(pieces)} pieces hold every grain once")
