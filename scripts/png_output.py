"""Every plot script's PNG writer: small files that the same code draws to the same bytes.

A figure is rendered by matplotlib, then stored as an 8-bit palette PNG (Pillow, which matplotlib
installs): line plots use few colours, so the palette keeps them exact while the file shrinks 3-5x
(a re-measure rewrites every plot, and git keeps every version). The PNG keeps matplotlib's
Software text, which tests/results/test_regenerated_results.py reads to decide whether the bytes
must match. Written atomically (temporary file, then rename).
"""
import io
import os

import matplotlib
from PIL import Image, PngImagePlugin

# The most a committed plot may weigh (tests/results/test_plot_sizes.py checks every PNG under results/).
MAX_BYTES = 300 * 1024


def save_png(fig, path, dpi):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    buffer.seek(0)
    image = Image.open(buffer)
    software = image.info.get("Software") or f"Matplotlib version{matplotlib.__version__}, https://matplotlib.org/"
    rgb = image.convert("RGB")
    # Median cut over the picture's own colours; no dithering, so flat areas stay flat (and compress).
    # 64 colours hold a plot's few series and their anti-aliased edges, and keep a results folder's
    # plots within its re-measure budget (docs/results-layout.md); 256 made them a fifth larger.
    palette = rgb.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    info = PngImagePlugin.PngInfo()
    info.add_text("Software", software)
    tmp = f"{path}.tmp"
    palette.save(tmp, format="PNG", optimize=True, pnginfo=info)
    os.replace(tmp, path)
