#!/usr/bin/env bash
# Installs what warpmodel needs and is missing, then configures and builds it in build/.
# Debian packages: compilers, CMake, CLI11, nlohmann-json, Eigen, GoogleTest, Google Benchmark, liblzma
# (the xz-compressed measurement files under results/).
# PyPI: matplotlib and pandas (plots), NVIDIA's cuobjdump and nvdisasm (SASS checks).
# The CUDA 13 toolkit is expected at /usr/local/cuda (or nvcc on PATH); without it the model,
# its tests and the CLI still build (WARPMODEL_ENABLE_CUDA=OFF) and GPU subcommands say so.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(g++ cmake make libcli11-dev nlohmann-json3-dev libeigen3-dev libgtest-dev libbenchmark-dev liblzma-dev)
missing=()
for p in "${apt_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# Python packages. cuobjdump/nvdisasm: PyPI has no 13.0 release of these wheels; 13.2.51 is the
# oldest published and reads sm_90 cubins from nvcc 13.0.
py_missing=()
python3 -c "import matplotlib" 2>/dev/null || py_missing+=(matplotlib)
python3 -c "import pandas" 2>/dev/null || py_missing+=(pandas)
if ! command -v cuobjdump >/dev/null && [ ! -x /usr/local/cuda/bin/cuobjdump ] && \
   ! python3 -c "import nvidia.cu13, os, sys; sys.exit(0 if os.path.exists(os.path.join(nvidia.cu13.__path__[0], 'bin', 'cuobjdump')) else 1)" 2>/dev/null; then
  py_missing+=("nvidia-cuda-cuobjdump==13.2.51" "nvidia-cuda-nvdisasm==13.2.51")
fi
if ((${#py_missing[@]})); then
  echo "setup: installing Python packages: ${py_missing[*]}"
  python3 -m pip install -q --disable-pip-version-check "${py_missing[@]}"
fi

# CUDA: on by default when nvcc exists.
nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc
cuda_flags=(-DWARPMODEL_ENABLE_CUDA=OFF)
if [ -n "$nvcc_path" ]; then
  cuda_flags=(-DWARPMODEL_ENABLE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc_path")
else
  echo "setup: no nvcc found: building without GPU subcommands (the model does not need them)"
fi

# ccache, where installed, makes a rebuild in another clone or after a branch switch fast.
launcher_flags=()
if command -v ccache >/dev/null; then
  launcher_flags=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi

echo "setup: configuring build/ (log: build.log)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cuda_flags[@]}" "${launcher_flags[@]}" >build.log 2>&1 || { cat build.log; exit 1; }
# The build takes about 10 minutes on 2 cores with CUDA: one line per finished target, with CMake's
# percentage, so that a first build shows where it is (everything else goes to build.log).
echo "setup: building with $(nproc) jobs (about 10 minutes on 2 cores the first time; nothing to do afterwards)"
start=$(date +%s)
set +e
cmake --build build -j"$(nproc)" 2>&1 | tee -a build.log |
  grep --line-buffered -E '^\[ *[0-9]+%\] Built target ' | sed -u 's/^/setup: /'
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || { echo "setup: the build failed; its last lines:"; tail -50 build.log; exit 1; }
echo "setup: built build/cli/warpmodel in $(( $(date +%s) - start )) s"
