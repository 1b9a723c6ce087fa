#!/usr/bin/python3
"""Writes resources/icons/ampscope.ico (Windows) and ampscope.icns (macOS) from ampscope.svg.

The Windows and macOS installers are built on machines without librsvg, so the two containers are
generated here once and committed; rerun this after changing the SVG:
    packaging/tools/make_icon_containers.py
Both containers hold PNG images (allowed in .ico since Windows Vista and in .icns since OS X 10.7), so
the only tool needed is rsvg-convert (Debian: librsvg2-bin).
"""
import pathlib
import struct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SVG = ROOT / "resources" / "icons" / "ampscope.svg"

ICO_SIZES = [16, 24, 32, 48, 64, 128, 256]
# OSType of each PNG element in an .icns and its pixel size (the @2x types repeat a size on purpose).
ICNS_TYPES = [("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256), ("ic09", 512),
              ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256), ("ic14", 512)]


def render(size, folder):
    out = folder / f"{size}.png"
    if not out.exists():
        subprocess.run(["rsvg-convert", "--width", str(size), "--height", str(size), "--format", "png",
                        "--output", str(out), str(SVG)], check=True)
    return out.read_bytes()


def write_ico(path, pngs):
    # ICONDIR, then one 16-byte ICONDIRENTRY per image, then the images. 256 is written as 0.
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = len(header) + 16 * len(pngs)
    entries, blobs = b"", b""
    for size, data in pngs:
        edge = 0 if size >= 256 else size
        entries += struct.pack("<BBBBHHII", edge, edge, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    path.write_bytes(header + entries + blobs)


def write_icns(path, elements):
    # 'icns' + total length, then (OSType, length including its 8-byte header, data) per element;
    # all integers big-endian.
    body = b"".join(kind.encode("ascii") + struct.pack(">I", 8 + len(data)) + data
                    for kind, data in elements)
    path.write_bytes(b"icns" + struct.pack(">I", 8 + len(body)) + body)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        write_ico(SVG.with_suffix(".ico"), [(s, render(s, folder)) for s in ICO_SIZES])
        write_icns(SVG.with_suffix(".icns"), [(k, render(s, folder)) for k, s in ICNS_TYPES])
    print(f"wrote {SVG.with_suffix('.ico')} and {SVG.with_suffix('.icns')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
