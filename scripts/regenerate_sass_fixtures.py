#!/usr/bin/env python3
"""Regenerate the SASS fixtures of tests/profiles/sass from a freshly built binary.

    scripts/regenerate_sass_fixtures.py build/cli/warpmodel [--sets sm90_ubench sm90_stencils] [--out DIR]

For each cubin in the binary (cuobjdump -xelf all) it runs the four commands the analyser runs
(cuobjdump -sass, cuobjdump -res-usage, cuobjdump -elf, nvdisasm -bbcfg -poff), keeps the kernels
named in FIXTURE_KERNELS (every cubin that holds one of them), and writes
    <out>/<set>.sass, <out>/<set>.res-usage.txt, <out>/<set>.cfg.dot, <out>/<set>.nv-info.txt
    (the .nv.info.KERNEL sections of cuobjdump -elf)
unchanged apart from dropping the other kernels, plus <out>/<set>.provenance.md (tools, commit, command).
The expected counts in tests/profiles/sass/test_sass_fixtures.cpp were checked by reading these
files; after regenerating, re-check them (the tests say which count moved).
"""
import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile

# fixture set -> symbols (exact) or substrings of demangled names (prefix "~")
FIXTURE_KERNELS = {
    # Hand-checked subjects of tests/profiles/sass. ubench_lat_register_mov was removed from the
    # program (ptxas deletes every chain of register moves, ubench/ubench.def); the committed set
    # predates that and keeps it: regenerating this set now stops on the missing kernel, and needs a
    # new hand-checked subject in tests/profiles/sass first.
    "sm90_ubench": [
        "ubench_clock64",           # tiny: hand-checked counts and blocks
        "ubench_departure",         # loop, BAR, LDG, STG
        "ubench_bw_shared",         # LDS/STS, static shared memory
        "ubench_lat_register_mov",  # two independent loads before their first use (MLP 2)
        "~link_nodes",              # CALL into an internal subroutine ($__internal_... cluster)
    ],
    # The timed regions tests/ubench's SASS check is tested on (with sm90_ubench's clock64 and
    # departure): ALU chains, the shared and global chases, and one kernel of each memory-pipe family.
    "sm90_ubench_timed": [
        "ubench_lat_fp32_add",
        "ubench_lat_fp32_fma",
        "ubench_lat_sfu_rcp",
        "ubench_lat_fp32_div_full",
        "ubench_shared_chase",
        "ubench_chase_ca",
        "ubench_chase_cg",
        "ubench_ldg_coalesced",
        "ubench_stg_coalesced",
        "ubench_local_chase",
        "ubench_barrier",
        "ubench_empty",
    ],
    # The tensor stage's timed regions (unit_kernels.cu, the sm_90a cubin): one kernel of each family
    # tests/ubench's check is tested on, the FP8 mma.sync emulation and a cluster kernel among them.
    "sm90a_ubench_units": [
        "ubench_mma_lat_mma_sync_f16",
        "ubench_mma_thr_mma_sync_f16",
        "ubench_mma_thr_mma_sync_e4m3",
        "ubench_wgmma_lat_wgmma_f16",
        "ubench_wgmma_thr_wgmma_f16",
        "ubench_tma_load_1d_bw",
        "ubench_tma_store_1d_bw",
        "ubench_bulk_load_bw",
        "ubench_cp_async_bw",
        "ubench_cluster_barrier",
        "ubench_cluster_barrier_relaxed",
    ],
    "sm90_stencils": [
        "~naive_kernel<1>",         # order 2 (radius 1), one point per thread: thesis listing 3.3
        "~shared_kernel<1>",        # order 2 with a shared-memory tile: BAR, LDS/STS
    ],
    # The example application's kernels that predict-app's guardrails read (from
    # build/tests/app_example/warpmodel_app_example): the launch values each reads, __launch_bounds__.
    "sm90_app_example": [
        "_ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix",   # template-sized block, grid-stride
        "_ZN11app_example19matmul_naive_kernelEPKfS1_Pfi",       # reads tid.y, ctaid.y, ntid.y
        "_ZN11app_example18rows_x_only_kernelEPKfPfi",           # 2D block, reads tid.x only
        "_ZN11app_example24scale_grid_stride_kernelEPfxf",       # reads nctaid.x (gridDim.x)
        "_ZN11app_example21bounded_square_kernelEPKfPfx",        # __launch_bounds__(128)
        "_ZN11app_example24block_sum_dynamic_kernelEPKfPfx",     # extern __shared__ sized from the block
    ],
}


def tool(name, env):
    if os.environ.get(env):
        return os.environ[env]
    found = shutil.which(name)
    if found:
        return found
    if os.path.exists(f"/usr/local/cuda/bin/{name}"):
        return f"/usr/local/cuda/bin/{name}"
    try:
        import nvidia.cu13  # the PyPI wheels (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm)
        path = os.path.join(nvidia.cu13.__path__[0], "bin", name)
        if os.path.exists(path):
            return path
    except ImportError:
        pass
    sys.exit(f"{name} not found (pip package nvidia-cuda-{name}, installed by scripts/setup.sh)")


def run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True, timeout=300).stdout


def demangle(names):
    if not names:
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def wanted(symbol, demangled, patterns):
    return any(symbol == p or (p.startswith("~") and (p[1:] in demangled or p[1:] in symbol)) for p in patterns)


def filter_sass(text, keep):
    """Keeps the header and the 'Function : X' blocks of kept kernels."""
    out, keeping, header_done = [], True, False
    for line in text.splitlines(keepends=True):
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            header_done = True
            keeping = m.group(1) in keep
        if keeping or not header_done:
            out.append(line)
    return "".join(out)


def filter_res_usage(text, keep):
    out, keeping = [], True
    for line in text.splitlines(keepends=True):
        m = re.match(r"\s*Function (\S+):", line)
        if m:
            keeping = m.group(1) in keep
        elif not line.startswith("  "):
            keeping = True
        if keeping:
            out.append(line)
    return "".join(out)


def filter_dot(text, keep):
    """Keeps the kernels' clusters and the internal-subroutine clusters that follow them."""
    out, keeping, previous_kernel_kept = [], True, False
    for line in text.splitlines(keepends=True):
        m = re.match(r'subgraph "cluster_(.*)" \{', line)
        if m:
            name = m.group(1)
            if name.startswith("$"):
                keeping = previous_kernel_kept
            else:
                keeping = previous_kernel_kept = name in keep
        if keeping:
            out.append(line)
        if line.rstrip() == "}" and m is None:
            keeping = True  # back at the top level (the digraph's closing brace is kept)
    return "".join(out)


def filter_nv_info(text, keep):
    """Keeps the .nv.info.KERNEL sections of the kept kernels (cuobjdump -elf prints each section's
    name alone on a line, then its contents)."""
    out, keeping = [], False
    for line in text.splitlines(keepends=True):
        t = line.strip()
        if t.startswith(".") and not any(c.isspace() for c in t):
            keeping = t.startswith(".nv.info.") and t[len(".nv.info."):] in keep
        if keeping:
            out.append(line)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("--sets", nargs="*", default=list(FIXTURE_KERNELS), help="fixture sets to write (default: all)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "tests", "profiles", "sass", "fixtures"))
    args = ap.parse_args()
    cuobjdump, nvdisasm = tool("cuobjdump", "WARPMODEL_CUOBJDUMP"), tool("nvdisasm", "WARPMODEL_NVDISASM")
    binary = os.path.abspath(args.binary)
    os.makedirs(args.out, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        run([cuobjdump, "-xelf", "all", binary], cwd=tmp)
        cubins = sorted(f for f in os.listdir(tmp) if f.endswith(".cubin"))
        if not cubins:
            sys.exit(f"{binary}: no cubin")
        for fixture, patterns in FIXTURE_KERNELS.items():
            if fixture not in args.sets:
                continue
            sass_parts, usage_parts, dot_parts, info_parts = [], [], [], []
            for cubin in cubins:
                path = os.path.join(tmp, cubin)
                sass = run([cuobjdump, "-sass", path])
                symbols = re.findall(r"Function : (\S+)", sass)
                names = demangle(symbols)
                keep = {s for s in symbols if wanted(s, names.get(s, s), patterns)}
                if not keep:
                    continue
                sass_parts.append(filter_sass(sass, keep))
                usage_parts.append(filter_res_usage(run([cuobjdump, "-res-usage", path]), keep))
                dot_parts.append(filter_dot(run([nvdisasm, "-bbcfg", "-poff", path]), keep))
                info_parts.append(filter_nv_info(run([cuobjdump, "-elf", path]), keep))
            found = "".join(sass_parts)
            missing = [p for p in patterns if not p.startswith("~") and f"Function : {p}\n" not in found]
            if not sass_parts or missing:
                print(f"{fixture}: {', '.join(missing) or patterns} not in {binary}; not written")
                continue
            for ext, parts in ((".sass", sass_parts), (".res-usage.txt", usage_parts), (".cfg.dot", dot_parts),
                               (".nv-info.txt", info_parts)):
                with open(os.path.join(args.out, fixture + ext), "w") as f:
                    f.write("".join(parts))
            written.append(fixture)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
    versions = {t: run([t, "--version"]).strip().splitlines()[-1] for t in (cuobjdump, nvdisasm)}
    for fixture in written:
        with open(os.path.join(args.out, fixture + ".provenance.md"), "w") as f:
            f.write(f"# SASS fixture {fixture}\n\n")
            f.write("Tool output for a few of the project's kernels, cut down to those kernels by\n")
            f.write("`scripts/regenerate_sass_fixtures.py` (otherwise as the tools printed it).\n\n")
            f.write(f"- kernels: {', '.join(FIXTURE_KERNELS[fixture])}\n")
            f.write(f"- binary: {args.binary} (built by nvcc: {nvcc_version()})\n")
            for t, v in versions.items():
                f.write(f"- {os.path.basename(t)}: {v}\n")
            f.write(f"- commit: {commit}{'+dirty' if dirty else ''}\n")
            f.write(f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}\n")
            f.write(f"- command: scripts/regenerate_sass_fixtures.py {args.binary} --sets {fixture}\n")
    print("wrote", ", ".join(written), "to", args.out)


def nvcc_version():
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    try:
        return run([nvcc, "--version"]).strip().splitlines()[-1]
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


if __name__ == "__main__":
    main()
