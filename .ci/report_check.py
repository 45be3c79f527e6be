#!/usr/bin/env python3
"""Checks `spotcheck report` as Chromium rendered it (called by .ci/report-browser.sh).

Modes:
  inject REPORT.html PROBE.html
      writes a copy of the report with a script at the end of the body that measures, after
      layout, every inline SVG figure (its box on the page and how many of its bars, lines
      and labels have a non-empty box) and the page's width, into <body data-probe="JSON">.
  check DOM.html SCREENSHOT.png
      reads the probe from Chromium's --dump-dom output and checks every figure has a box
      and drawn marks and the page does not overflow sideways; then decodes the screenshot
      (plain zlib, no imaging library) and checks each figure's region of it is not blank:
      enough non-white pixels in several colours.
Exit 0 when every check passes, 1 otherwise (with the reason on stderr).
"""

import html
import json
import re
import struct
import sys
import zlib

PROBE = """
<script>
(function () {
  const figs = Array.from(document.querySelectorAll('svg')).map(function (svg) {
    const r = svg.getBoundingClientRect();
    const drawn = function (sel) {
      return Array.from(svg.querySelectorAll(sel)).filter(function (e) {
        const b = e.getBoundingClientRect();
        return b.width > 0 || b.height > 0;
      }).length;
    };
    return {x: r.left + window.scrollX, y: r.top + window.scrollY,
            width: r.width, height: r.height,
            rects: drawn('rect'), lines: drawn('line, path, polyline'), texts: drawn('text')};
  });
  document.body.setAttribute('data-probe', JSON.stringify({
    figures: figs,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    scrollHeight: document.documentElement.scrollHeight
  }));
})();
</script>
"""


def fail(msg):
    print("report-browser: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def inject(src, dst):
    text = open(src, encoding="utf-8").read()
    if "</body>" not in text:
        fail(f"{src}: no </body>")
    open(dst, "w", encoding="utf-8").write(text.replace("</body>", PROBE + "</body>", 1))


def read_png(path):
    """8-bit RGB/RGBA non-interlaced PNG → (width, height, channels, rows of bytes)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path}: not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, color, _, _, interlace = ihdr
    if depth != 8 or color not in (2, 6) or interlace != 0:
        fail(f"{path}: unexpected PNG format depth={depth} color={color} interlace={interlace}")
    ch = 3 if color == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b = prev[x]
            c = prev[x - ch] if x >= ch else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def check(dom_path, png_path):
    dom = open(dom_path, encoding="utf-8", errors="replace").read()
    m = re.search(r'data-probe="([^"]*)"', dom)
    if not m:
        fail(f"{dom_path}: the probe did not run (no data-probe on <body>)")
    probe = json.loads(html.unescape(m.group(1)))
    figs = probe["figures"]
    if not figs:
        fail("the report has no SVG figure")
    for i, f in enumerate(figs):
        if f["width"] < 50 or f["height"] < 50:
            fail(f"figure {i}: box {f['width']}x{f['height']} (not laid out)")
        if f["rects"] < 2 or f["texts"] < 2:
            fail(f"figure {i}: {f['rects']} bars/rects and {f['texts']} labels drawn")
    if probe["scrollWidth"] > probe["innerWidth"] + 1:
        fail(f"the page overflows sideways: {probe['scrollWidth']} px wide in a "
             f"{probe['innerWidth']} px window")
    w, h, ch, rows = read_png(png_path)
    for i, f in enumerate(figs):
        x0, y0 = max(0, int(f["x"])), max(0, int(f["y"]))
        x1, y1 = min(w, int(f["x"] + f["width"])), min(h, int(f["y"] + f["height"]))
        if x1 - x0 < 50 or y1 - y0 < 50:
            fail(f"figure {i} lies outside the {w}x{h} screenshot ({x0},{y0})-({x1},{y1})")
        inked, colours, total = 0, set(), 0
        for y in range(y0, y1, 2):
            row = rows[y]
            for x in range(x0, x1, 2):
                px = tuple(row[x * ch:x * ch + 3])
                total += 1
                if min(px) < 235:
                    inked += 1
                    colours.add((px[0] // 32, px[1] // 32, px[2] // 32))
        share = inked / max(total, 1)
        if share < 0.01 or len(colours) < 3:
            fail(f"figure {i}: its region of the screenshot is blank "
                 f"({share:.1%} inked, {len(colours)} colours)")
        print(f"figure {i}: {f['width']:.0f}x{f['height']:.0f} px at ({x0},{y0}), "
              f"{f['rects']} rects, {f['lines']} lines, {f['texts']} labels; "
              f"{share:.1%} of its pixels inked in {len(colours)} colours")
    print(f"report-browser: ok: {len(figs)} figures render ({w}x{h} screenshot)")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "inject":
        inject(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
