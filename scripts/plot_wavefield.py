#!/usr/bin/env python3
"""Draw slices of run-stencil snapshots (VTK ImageData .vti, raw appended Float32) as one PNG.

  scripts/plot_wavefield.py snapshots/wavefield_000100.vti [more.vti ...] \
      [--plane xz|yz|xy] [--index N] [--velocity snapshots/velocity.vti] -o results/h200/wavefield.png

One panel per snapshot (as thesis figure 3.5), the pressure on a symmetric colour scale; with
--velocity, the velocity model's contour (the layer interface of the two-layer model) is drawn
over it. --index defaults to the middle of the axis the plane cuts. Plots only: nothing measured.
"""
import argparse
import os
import re
import struct
import sys


def read_vti(path):
    with open(path, "rb") as f:
        data = f.read()
    head_end = data.find(b"<AppendedData")
    if not data.startswith(b"<?xml") or head_end < 0 or b'header_type="UInt64"' not in data[:head_end]:
        raise ValueError(f"{path}: not a VTK ImageData file with raw appended data (UInt64 headers)")
    head = data[:head_end].decode()
    ext = [int(v) for v in re.search(r'WholeExtent="([^"]+)"', head).group(1).split()]
    spacing = float(re.search(r'Spacing="([^"]+)"', head).group(1).split()[0])
    nx, ny, nz = ext[1] - ext[0] + 1, ext[3] - ext[2] + 1, ext[5] - ext[4] + 1
    start = data.index(b"_", head_end) + 1
    fields = {}
    for m in re.finditer(r'<DataArray type="Float32" Name="([^"]+)" format="appended" offset="(\d+)"', head):
        at = start + int(m.group(2))
        (nbytes,) = struct.unpack_from("<Q", data, at)
        if nbytes != 4 * nx * ny * nz:
            raise ValueError(f"{path}: array {m.group(1)} has {nbytes} bytes, expected {4 * nx * ny * nz}")
        fields[m.group(1)] = (at + 8, data)
    return (nx, ny, nz), spacing, fields


def as_array(shape, field):
    import numpy as np
    at, data = field
    nx, ny, nz = shape
    return np.frombuffer(data, dtype="<f4", count=nx * ny * nz, offset=at).reshape(nz, ny, nx)  # [k][j][i]


def slice_of(volume, plane, index):
    if plane == "xz":
        return volume[:, index, :], ("x (m)", "z (m)")
    if plane == "yz":
        return volume[:, :, index], ("y (m)", "z (m)")
    return volume[index, :, :], ("x (m)", "y (m)")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("snapshots", nargs="+")
    ap.add_argument("--plane", choices=["xz", "yz", "xy"], default="xz")
    ap.add_argument("--index", type=int)
    ap.add_argument("--velocity")
    ap.add_argument("--title", default="")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import numpy as np
        from png_output import save_png
    except ImportError as e:
        print(f"plot_wavefield: needs matplotlib and numpy ({e}); scripts/setup.sh installs them", file=sys.stderr)
        return 2
    try:
        panels = []
        for path in a.snapshots:
            shape, h, fields = read_vti(path)
            if "pressure" not in fields:
                raise ValueError(f"{path}: no 'pressure' array")
            vol = as_array(shape, fields["pressure"])
            axis = {"xz": shape[1], "yz": shape[0], "xy": shape[2]}[a.plane]
            index = axis // 2 if a.index is None else a.index
            if not 0 <= index < axis:
                raise ValueError(f"--index {index} is outside 0..{axis - 1}")
            img, labels = slice_of(vol, a.plane, index)
            step = re.search(r"(\d+)\.vti$", path)
            panels.append((img, labels, shape, h, step.group(1).lstrip("0") if step else os.path.basename(path)))
        contour = None
        if a.velocity:
            vshape, _, vfields = read_vti(a.velocity)
            if vshape != panels[0][2] or "velocity" not in vfields:
                raise ValueError(f"{a.velocity}: no velocity array of the snapshots' size")
            contour, _ = slice_of(as_array(vshape, vfields["velocity"]), a.plane, index)
    except (OSError, ValueError, AttributeError) as e:
        print(f"plot_wavefield: {e}", file=sys.stderr)
        return 2

    n = len(panels)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.8 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.axis("off")
    for ax, (img, labels, shape, h, step) in zip(axes.flat, panels):
        lim = float(np.max(np.abs(img))) or 1.0
        extent = [0, img.shape[1] * h, img.shape[0] * h, 0]  # z grows downwards, as depth
        im = ax.imshow(img, cmap="seismic", vmin=-lim, vmax=lim, extent=extent, aspect="equal")
        if contour is not None:
            ax.contour(np.linspace(0, img.shape[1] * h, img.shape[1]), np.linspace(0, img.shape[0] * h, img.shape[0]),
                       contour, levels=[float(np.min(contour) + np.max(contour)) / 2], colors="k", linewidths=0.8)
        ax.set_title(f"step {step}, {a.plane} plane at index {index}", fontsize=9)
        ax.set_xlabel(labels[0])
        ax.set_ylabel(labels[1])
        fig.colorbar(im, ax=ax, shrink=0.8, label="pressure")
    if a.title:
        fig.suptitle(a.title, fontsize=10)
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(a.output))
    os.makedirs(folder, exist_ok=True)
    save_png(fig, a.output, dpi=110)
    print(f"plot_wavefield: wrote {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
