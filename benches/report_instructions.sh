#!/usr/bin/env bash
# Instructions per tensor of `shapes check` (whole process) on the three cases of
# benches/report.rs at 1,000, 10,000 and 100,000 tensors: N unexpected tensors of distinct
# names, N mismatched layers, N renamed layers (N missing tensors, each with a did-you-mean
# among N unexpected names). Counted by valgrind's callgrind, which counts instructions, not
# seconds: the same figure on a busy machine as on an idle one, so a cost per tensor that
# grows with N shows whatever else the machine is doing.
#
#   bash benches/report_instructions.sh        (needs python3 and valgrind)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --quiet --release -p shapes-cli --manifest-path "$root/Cargo.toml"
bin=$target/release/shapes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import json, os, struct, sys
work = sys.argv[1]

def tag(i):
    return "%08x" % (((i * 0x9E3779B97F4A7C15) & (2**64 - 1)) >> 32)

def write(path, tensors, config):
    os.makedirs(path, exist_ok=True)
    header, off = {}, 0
    for name, dims in tensors:
        n = 4
        for d in dims:
            n *= d
        header[name] = {"dtype": "F32", "shape": dims, "data_offsets": [off, off + n]}
        off += n
    blob = json.dumps(header, separators=(",", ":")).encode()
    with open(os.path.join(path, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob)
        f.truncate(8 + len(blob) + off)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f)

for n in (1000, 10000, 100000):
    write(f"{work}/unexpected-{n}", [("w", [4])] + [(f"extra_{tag(i)}.weight", [4]) for i in range(n)], {})
    write(f"{work}/mismatched-{n}", [(f"layers.{i}.w", [4, 5]) for i in range(n)], {"n_layers": n})
    write(f"{work}/renamed-{n}", [(f"layers.{i}.attn.qproj", [4, 4]) for i in range(n)], {"n_layers": n})
with open(f"{work}/unexpected.toml", "w") as f:
    f.write('[tensors]\n"w" = "(d,)"\n')
with open(f"{work}/mismatched.toml", "w") as f:
    f.write('[config]\nn = "n_layers"\n[repeat]\n"layers" = "n"\n[tensors]\n"layers.{i}.w" = "(d, d)"\n')
with open(f"{work}/renamed.toml", "w") as f:
    f.write('[config]\nn = "n_layers"\n[repeat]\n"layers" = "n"\n[tensors]\n"layers.{i}.attn.q_proj" = "(d, d)"\n')
PY

printf '%-11s %8s %16s %12s\n' case tensors instructions per-tensor
for case in unexpected mismatched renamed; do
  for n in 1000 10000 100000; do
    # The check fails (exit 1) by design: every case is a mismatch.
    total=$( (valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$bin" check "$work/$case-$n" --spec "$work/$case.toml" 2>&1 >/dev/null || true) \
      | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    printf '%-11s %8d %16d %12d\n' "$case" "$n" "$total" $((total / n))
  done
done
