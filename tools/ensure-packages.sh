#!/bin/sh
# Installs the Debian packages icuda builds against, if any is missing
# (make run calls this; make itself never needs root).
set -e
CUDA=${CUDA:-/usr/local/cuda}
missing=""
pkg-config --exists libzmq 2>/dev/null || missing="$missing libzmq3-dev"
pkg-config --exists jansson 2>/dev/null || missing="$missing libjansson-dev"
pkg-config --exists openssl 2>/dev/null || missing="$missing libssl-dev"
command -v pkg-config >/dev/null 2>&1 || missing="pkg-config $missing"
command -v cc >/dev/null 2>&1 || missing="$missing build-essential"
python3 -c 'import venv, ensurepip' 2>/dev/null || missing="$missing python3-venv"
if [ ! -f "$CUDA/include/nvrtc.h" ]; then
    echo "icuda needs the CUDA toolkit (NVRTC) in $CUDA; set CUDA=/path/to/cuda" >&2
    exit 1
fi
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
elif command -v sudo >/dev/null 2>&1; then
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
else
    echo "please install:$missing  (apt-get install$missing)" >&2
    exit 1
fi
