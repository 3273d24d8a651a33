#!/usr/bin/env bash
# Whole-process wall time of `shapes check` (process start included) on
#   1. a 2-shard BERT-base-sized safetensors checkpoint (bert-base-uncased's 199 tensors, F32,
#      ~440 MB) given by its model.safetensors.index.json, with its config.json, and
#   2. a ~100 MB GGUF (a small Llama) with a 50,000-token vocabulary in its metadata
#      (tokenizer.ggml.tokens, .scores, .token_type),
# each against `cat FILE > /dev/null` of the same bytes in the same run: the command reads
# headers only, so it must stay far below reading the files.
#
#   bash benches/cli_wall.sh [RUNS]        (default 30 runs of each; needs python3)
#
# Uses hyperfine when it is installed; otherwise a loop of `date +%s%N` around each run and
# the median of the runs.
set -euo pipefail
runs=${1:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --quiet --release -p shapes-cli --manifest-path "$root/Cargo.toml"
bin=$target/release/shapes
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import json, os, struct, sys
work = sys.argv[1]

def write_safetensors(path, tensors):
    header, off = {}, 0
    for name, dims in tensors:
        n = 4
        for d in dims:
            n *= d
        header[name] = {"dtype": "F32", "shape": dims, "data_offsets": [off, off + n]}
        off += n
    raw = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        chunk = bytes(1 << 20)
        left = off
        while left:
            k = min(left, len(chunk))
            f.write(chunk[:k])
            left -= k

# bert-base-uncased (BertModel names): vocab 30522, 512 positions, 2 types, 768, 12 layers.
V, P, T, D, F, L = 30522, 512, 2, 768, 3072, 12
t = [("embeddings.word_embeddings.weight", [V, D]), ("embeddings.position_embeddings.weight", [P, D]),
     ("embeddings.token_type_embeddings.weight", [T, D]), ("embeddings.LayerNorm.weight", [D]),
     ("embeddings.LayerNorm.bias", [D])]
for i in range(L):
    l = f"encoder.layer.{i}"
    for m in ("query", "key", "value"):
        t += [(f"{l}.attention.self.{m}.weight", [D, D]), (f"{l}.attention.self.{m}.bias", [D])]
    t += [(f"{l}.attention.output.dense.weight", [D, D]), (f"{l}.attention.output.dense.bias", [D]),
          (f"{l}.attention.output.LayerNorm.weight", [D]), (f"{l}.attention.output.LayerNorm.bias", [D]),
          (f"{l}.intermediate.dense.weight", [F, D]), (f"{l}.intermediate.dense.bias", [F]),
          (f"{l}.output.dense.weight", [D, F]), (f"{l}.output.dense.bias", [D]),
          (f"{l}.output.LayerNorm.weight", [D]), (f"{l}.output.LayerNorm.bias", [D])]
t += [("pooler.dense.weight", [D, D]), ("pooler.dense.bias", [D])]
bert = os.path.join(work, "bert")
os.makedirs(bert)
half = len(t) // 2
shards = {"model-00001-of-00002.safetensors": t[:half], "model-00002-of-00002.safetensors": t[half:]}
weight_map = {}
for shard, ts in shards.items():
    write_safetensors(os.path.join(bert, shard), ts)
    weight_map.update({n: shard for n, _ in ts})
json.dump({"metadata": {}, "weight_map": weight_map}, open(os.path.join(bert, "model.safetensors.index.json"), "w"))
json.dump({"model_type": "bert", "architectures": ["BertModel"], "hidden_size": D, "num_attention_heads": 12,
           "num_hidden_layers": L, "intermediate_size": F, "vocab_size": V, "max_position_embeddings": P,
           "type_vocab_size": T}, open(os.path.join(bert, "config.json"), "w"))

# A Llama of ~100 MB (F16) with a 50,000-token vocabulary in the metadata.
def s(x):
    b = x.encode()
    return struct.pack("<Q", len(b)) + b
vocab, d, layers, heads, kv, ff = 50000, 512, 8, 8, 4, 1536
hd = d // heads
tensors = [("token_embd.weight", [vocab, d])]
for i in range(layers):
    b = f"blk.{i}"
    tensors += [(f"{b}.attn_norm.weight", [d]), (f"{b}.attn_q.weight", [d, d]), (f"{b}.attn_k.weight", [kv * hd, d]),
                (f"{b}.attn_v.weight", [kv * hd, d]), (f"{b}.attn_output.weight", [d, d]), (f"{b}.ffn_norm.weight", [d]),
                (f"{b}.ffn_gate.weight", [ff, d]), (f"{b}.ffn_up.weight", [ff, d]), (f"{b}.ffn_down.weight", [d, ff])]
tensors += [("output_norm.weight", [d])]  # output tied to token_embd
meta = [("general.architecture", 8, s("llama"))]
for k, v in [("embedding_length", d), ("block_count", layers), ("feed_forward_length", ff),
             ("attention.head_count", heads), ("attention.head_count_kv", kv)]:
    meta.append((f"llama.{k}", 4, struct.pack("<I", v)))
meta.append(("tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, vocab) + b"".join(s(f"tok{i}") for i in range(vocab))))
meta.append(("tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, vocab) + bytes(4 * vocab)))
meta.append(("tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, vocab) + bytes(4 * vocab)))
out = bytearray(b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta)))
for k, ty, payload in meta:
    out += s(k) + struct.pack("<I", ty) + payload
off = 0
for name, dims in tensors:
    out += s(name) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", x) for x in reversed(dims))
    out += struct.pack("<IQ", 1, off)
    n = 2
    for x in dims:
        n *= x
    off = (off + n + 31) // 32 * 32
out += bytes((-len(out)) % 32)
with open(os.path.join(work, "model.gguf"), "wb") as f:
    f.write(out)
    f.write(bytes(off))
PY

median_ms() { # median wall time in ms of running "$@" $runs times
    local t=()
    for _ in $(seq "$runs"); do
        local a b
        a=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        b=$(date +%s%N)
        t+=($(( (b - a) / 1000 )))
    done
    printf '%s\n' "${t[@]}" | sort -n | awk '{v[NR]=$1} END {m=v[int((NR+1)/2)]; printf "%.2f ms", m/1000}'
}

bench() { # name, files to cat, shapes arguments
    local name=$1 files=$2
    shift 2
    echo "== $name ($(du -ch $files | tail -1 | cut -f1))"
    "$bin" "$@" >/dev/null || { echo "shapes check did not pass on $name"; "$bin" "$@"; exit 1; }
    if command -v hyperfine >/dev/null; then
        hyperfine -N --warmup 3 --runs "$runs" "$bin $*" "sh -c 'cat $files > /dev/null'"
    else
        echo "shapes check: median $(median_ms "$bin" "$@")"
        echo "cat > /dev/null: median $(median_ms sh -c "cat $files > /dev/null")"
    fi
}

bench "2-shard BERT-base, by its index" "$work/bert/model-0000*-of-00002.safetensors" \
    check "$work/bert/model.safetensors.index.json"
bench "100 MB GGUF, 50k-token vocabulary" "$work/model.gguf" check "$work/model.gguf"
