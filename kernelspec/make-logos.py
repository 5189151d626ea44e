#!/usr/bin/env python3
"""Draws the icuda logo: a green rounded square with a white "CU".

Writes logo-32x32.png, logo-64x64.png and logo-svg.svg next to this script.
Only the standard library (zlib, struct): the shapes are stroked paths in a
64-unit square, rasterised by supersampling. The build embeds the results in
the icuda binary (kernel/logos.c), so re-run this only to change the logo.
"""
import math
import os
import struct
import zlib

GREEN = (0x76, 0xB9, 0x00)
WHITE = (0xFF, 0xFF, 0xFF)
STROKE = 6.0
C_CENTER, C_RADIUS = (21.0, 32.0), 11.0     # "C": arc with a 90 degree gap on the right
U_LEFT, U_RIGHT, U_TOP, U_BEND = 36.0, 54.0, 20.0, 33.0  # "U": two bars and a half circle


def in_square(x, y):
    """Rounded square (2,2)-(62,62), corner radius 12."""
    lo, hi, r = 2.0, 62.0, 12.0
    cx = min(max(x, lo + r), hi - r)
    cy = min(max(y, lo + r), hi - r)
    return lo <= x <= hi and lo <= y <= hi and (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def dist_segment(px, py, ax, ay, bx, by):
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def in_letters(x, y):
    half = STROKE / 2
    # C: every angle but |a| < 45 degrees (screen coordinates, y down)
    cx, cy = C_CENTER
    a = math.degrees(math.atan2(y - cy, x - cx))
    if abs(a) >= 45:
        d = abs(math.hypot(x - cx, y - cy) - C_RADIUS)
    else:
        ends = [(cx + C_RADIUS * math.cos(math.radians(s)), cy + C_RADIUS * math.sin(math.radians(s)))
                for s in (-45, 45)]
        d = min(math.hypot(x - ex, y - ey) for ex, ey in ends)
    if d <= half:
        return True
    # U: bars, then the lower half circle
    ux, ur = (U_LEFT + U_RIGHT) / 2, (U_RIGHT - U_LEFT) / 2
    d = min(dist_segment(x, y, U_LEFT, U_TOP, U_LEFT, U_BEND),
            dist_segment(x, y, U_RIGHT, U_TOP, U_RIGHT, U_BEND))
    if y >= U_BEND:
        d = min(d, abs(math.hypot(x - ux, y - U_BEND) - ur))
    return d <= half


def render(size, ss=4):
    rows = []
    scale = 64.0 / size
    for j in range(size):
        row = bytearray([0])  # PNG filter type: none
        for i in range(size):
            sq = letters = 0
            for sj in range(ss):
                for si in range(ss):
                    x = (i + (si + 0.5) / ss) * scale
                    y = (j + (sj + 0.5) / ss) * scale
                    if in_square(x, y):
                        sq += 1
                        letters += in_letters(x, y)
            n = ss * ss
            alpha = sq / n
            if sq:
                w = letters / sq
                rgb = [round(g * (1 - w) + wh * w) for g, wh in zip(GREEN, WHITE)]
            else:
                rgb = [0, 0, 0]
            row += bytes(rgb + [round(alpha * 255)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(size):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(render(size), 9)) + chunk(b"IEND", b""))


def svg():
    cx, cy = C_CENTER
    k = C_RADIUS * math.cos(math.radians(45))
    ux, ur = (U_LEFT + U_RIGHT) / 2, (U_RIGHT - U_LEFT) / 2
    return f"""<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
  <title>icuda</title>
  <rect x="2" y="2" width="60" height="60" rx="12" fill="#76B900"/>
  <g fill="none" stroke="#FFFFFF" stroke-width="{STROKE:g}" stroke-linecap="round">
    <path d="M {cx + k:.2f} {cy - k:.2f} A {C_RADIUS:g} {C_RADIUS:g} 0 1 0 {cx + k:.2f} {cy + k:.2f}"/>
    <path d="M {U_LEFT:g} {U_TOP:g} V {U_BEND:g} A {ur:g} {ur:g} 0 0 0 {U_RIGHT:g} {U_BEND:g} V {U_TOP:g}"/>
  </g>
</svg>
"""


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for size in (32, 64):
        with open(os.path.join(here, f"logo-{size}x{size}.png"), "wb") as f:
            f.write(png(size))
    with open(os.path.join(here, "logo-svg.svg"), "w") as f:
        f.write(svg())
