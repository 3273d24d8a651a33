"""The repository's pre-commit hook (.pre-commit-hooks.yaml), run by pre-commit itself.

Called by tests/wheel/run with pre-commit's path as its argument and the installed wheel's
`shapes` first on PATH. The manifest is validated by pre-commit's own loader; its hook is then
declared in a scratch repository's config as a `local` hook of language `system` (the command is
already installed, from the wheel, which is what pre-commit's `python` language does from this
repository's pyproject.toml) with its `entry`, `files`, `exclude` and `types` unchanged, and
`pre-commit run` classifies the staged files, passes them to `shapes check` several at a time
and fails on any non-zero exit, as it would in a user's repository.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import yaml
from pre_commit.clientlib import load_manifest

ROOT = Path(__file__).resolve().parents[2]
SCRATCH = ROOT / "target" / "wheel-test" / "precommit-repo"
PRE_COMMIT = os.path.abspath(sys.argv[1])

# A small Llama with grouped-query attention and tied embeddings.
LLAMA = dict(vocab=256, d=64, layers=2, heads=4, kv_heads=2, head_dim=16, ff=128)


def fail(msg: str, output: str = "") -> None:
    sys.stderr.write(output + "\n")
    sys.exit(f"FAIL: {msg}")


def llama_hf(ff: int = LLAMA["ff"]) -> dict[str, list[int]]:
    m = LLAMA
    q, kv = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    t = {"model.embed_tokens.weight": [m["vocab"], m["d"]]}
    for i in range(m["layers"]):
        p = f"model.layers.{i}"
        t[f"{p}.self_attn.q_proj.weight"] = [q, m["d"]]
        t[f"{p}.self_attn.k_proj.weight"] = [kv, m["d"]]
        t[f"{p}.self_attn.v_proj.weight"] = [kv, m["d"]]
        t[f"{p}.self_attn.o_proj.weight"] = [m["d"], q]
        t[f"{p}.mlp.gate_proj.weight"] = [ff, m["d"]]
        t[f"{p}.mlp.up_proj.weight"] = [ff, m["d"]]
        t[f"{p}.mlp.down_proj.weight"] = [m["d"], ff]
        t[f"{p}.input_layernorm.weight"] = [m["d"]]
        t[f"{p}.post_attention_layernorm.weight"] = [m["d"]]
    t["model.norm.weight"] = [m["d"]]
    return t


def llama_config(intermediate_size: int = LLAMA["ff"]) -> str:
    m = LLAMA
    return json.dumps(
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": m["d"],
            "intermediate_size": intermediate_size,
            "num_attention_heads": m["heads"],
            "num_key_value_heads": m["kv_heads"],
            "num_hidden_layers": m["layers"],
            "vocab_size": m["vocab"],
            "tie_word_embeddings": True,
        }
    )


def write_safetensors(path: Path, tensors: dict[str, list[int]]) -> None:
    """F16 tensors; the data section is left sparse (shapes never reads it)."""
    header, offset = {}, 0
    for name, dims in tensors.items():
        n = 2
        for d in dims:
            n *= d
        header[name] = {"dtype": "F16", "shape": dims, "data_offsets": [offset, offset + n]}
        offset += n
    blob = json.dumps(header).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob)
        f.truncate(8 + len(blob) + offset)


def write_llama_gguf(path: Path) -> None:
    """A GGUF v3 file of the same Llama, dims written in ggml order, data left sparse."""
    m = LLAMA
    q, kv = m["heads"] * m["head_dim"], m["kv_heads"] * m["head_dim"]
    tensors = {"token_embd.weight": [m["vocab"], m["d"]]}
    for i in range(m["layers"]):
        p = f"blk.{i}"
        tensors.update(
            {
                f"{p}.attn_norm.weight": [m["d"]],
                f"{p}.attn_q.weight": [q, m["d"]],
                f"{p}.attn_k.weight": [kv, m["d"]],
                f"{p}.attn_v.weight": [kv, m["d"]],
                f"{p}.attn_output.weight": [m["d"], q],
                f"{p}.ffn_norm.weight": [m["d"]],
                f"{p}.ffn_gate.weight": [m["ff"], m["d"]],
                f"{p}.ffn_up.weight": [m["ff"], m["d"]],
                f"{p}.ffn_down.weight": [m["d"], m["ff"]],
            }
        )
    tensors["output_norm.weight"] = [m["d"]]

    def s(text: str) -> bytes:
        b = text.encode()
        return struct.pack("<Q", len(b)) + b

    meta = [
        (s("general.architecture"), struct.pack("<I", 8) + s("llama")),
        (s("llama.embedding_length"), struct.pack("<II", 4, m["d"])),
        (s("llama.block_count"), struct.pack("<II", 4, m["layers"])),
        (s("llama.feed_forward_length"), struct.pack("<II", 4, m["ff"])),
        (s("llama.attention.head_count"), struct.pack("<II", 4, m["heads"])),
        (s("llama.attention.head_count_kv"), struct.pack("<II", 4, m["kv_heads"])),
        (s("llama.vocab_size"), struct.pack("<II", 4, m["vocab"])),
    ]
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
    out += b"".join(k + v for k, v in meta)
    offset = 0
    for name, dims in tensors.items():
        out += s(name) + struct.pack("<I", len(dims))
        out += b"".join(struct.pack("<Q", d) for d in reversed(dims))
        out += struct.pack("<IQ", 1, offset)  # F16
        n = 2
        for d in dims:
            n *= d
        offset = (offset + n + 31) // 32 * 32
    start = (len(out) + 31) // 32 * 32
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as f:
        f.write(out.ljust(start, b"\0"))
        f.truncate(start + offset)


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=SCRATCH, check=True, capture_output=True)


def pre_commit_run(config: str) -> tuple[int, str]:
    """`pre-commit run` of the hook on the staged files, as a commit would run it."""
    env = dict(os.environ, PRE_COMMIT_HOME=str(SCRATCH.parent / "pre-commit-home"))
    done = subprocess.run(
        [PRE_COMMIT, "run", "--config", config, "--color", "never", "--verbose", "shapes-check"],
        cwd=SCRATCH,
        env=env,
        capture_output=True,
        text=True,
    )
    return done.returncode, done.stdout + done.stderr


def checked(output: str) -> set[str]:
    """The files shapes reported on: each report starts with `PATH: FORMAT, N tensors`."""
    header = re.compile(r"^(\S+): [\w ]+(, \d+ files)?, \d+ tensors$")
    return {m.group(1) for m in map(header.match, output.splitlines()) if m}


def main() -> None:
    manifest_path = ROOT / ".pre-commit-hooks.yaml"
    hooks = load_manifest(str(manifest_path))  # pre-commit's own validation of the manifest
    (hook,) = [h for h in hooks if h["id"] == "shapes-check"]
    if hook["language"] != "python" or not hook["entry"].startswith("shapes check"):
        fail(f"the hook is not `shapes check` installed by pip: {hook}")
    raw = [h for h in yaml.safe_load(manifest_path.read_text()) if h["id"] == "shapes-check"][0]
    if shutil.which("shapes") is None:
        fail("no `shapes` on PATH")

    if SCRATCH.exists():
        shutil.rmtree(SCRATCH)
    SCRATCH.mkdir(parents=True)
    git("init", "--quiet")

    # The hook as this repository declares it, the command already installed.
    local = {k: v for k, v in raw.items() if k != "language"}
    local["language"] = "system"
    (SCRATCH / "hook.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]})
    )
    # A user's config for a spec of their own: the same hook with `args` (and `files` narrowed).
    with_spec = dict(
        local,
        args=["--spec", "fracast/fracast.toml", "--config", "fracast/fracast_config.json"],
        files=r"^fracast/.*\.safetensors$",
    )
    (SCRATCH / "spec.yaml").write_text(
        yaml.safe_dump({"repos": [{"repo": "local", "hooks": [with_spec]}]})
    )

    write_safetensors(SCRATCH / "good/model.safetensors", llama_hf())
    (SCRATCH / "good/config.json").write_text(llama_config())
    # A sharded checkpoint: its shards are not checkpoints alone; its index reads them all.
    shards = SCRATCH / "sharded"
    tensors = list(llama_hf().items())
    half = len(tensors) // 2
    weight_map = {}
    for i, part in enumerate([tensors[:half], tensors[half:]], 1):
        name = f"model-0000{i}-of-00002.safetensors"
        write_safetensors(shards / name, dict(part))
        weight_map.update({n: name for n, _ in part})
    (shards / "model.safetensors.index.json").write_text(
        json.dumps({"metadata": {}, "weight_map": weight_map})
    )
    (shards / "config.json").write_text(llama_config())
    write_llama_gguf(SCRATCH / "gguf/tiny-llama.gguf")
    (SCRATCH / "README.md").write_text("weights\n")
    git("add", "hook.yaml", "spec.yaml", "good", "sharded", "gguf", "README.md")

    code, out = pre_commit_run("hook.yaml")
    if code != 0 or "Passed" not in out:
        fail(f"pre-commit exited {code} on matching checkpoints", out)
    want = {
        "good/model.safetensors",
        "sharded/model.safetensors.index.json",
        "gguf/tiny-llama.gguf",
    }
    if checked(out) != want:
        fail(f"the hook checked {sorted(checked(out))}, expected {sorted(want)}", out)
    if out.count("OK: the checkpoint matches the spec") != 3 or "3 checkpoints: 3 match" not in out:
        fail("three verdicts, each OK, from one run of shapes", out)
    print("ok: the hook passes three matching checkpoints (shards left to their index)")

    # One checkpoint whose config states the wrong d_ff: the commit is refused, and the others
    # are still reported as matching.
    write_safetensors(SCRATCH / "bad/model.safetensors", llama_hf())
    (SCRATCH / "bad/config.json").write_text(llama_config(intermediate_size=192))
    git("add", "bad")
    code, out = pre_commit_run("hook.yaml")
    if code != 1 or "Failed" not in out or "- exit code: 1" not in out:
        fail(f"pre-commit exited {code} with a mismatching checkpoint staged", out)
    if "config `intermediate_size` = 192, but the tensors give d_ff = 128" not in out:
        fail("the mismatch names the config key", out)
    if checked(out) != want | {"bad/model.safetensors"}:
        fail(f"the hook checked {sorted(checked(out))}", out)
    if "4 checkpoints: 3 match, 1 does not match" not in out:
        fail("the matching checkpoints keep their verdicts", out)
    print("ok: a mismatching checkpoint fails the hook (exit 1), each file with its verdict")

    # A file that is no checkpoint: exit 2.
    (SCRATCH / "junk.safetensors").write_text("not weights\n")
    git("add", "junk.safetensors")
    code, out = pre_commit_run("hook.yaml")
    if code != 1 or "- exit code: 2" not in out or "junk.safetensors: " not in out:
        fail(f"pre-commit exited {code} with an unreadable file staged", out)
    print("ok: an unreadable file fails the hook (exit 2)")

    # A spec given in `args`, on the fracast fixture; then its int8-quantised copy, whose
    # tensors the float spec does not describe.
    git("rm", "--cached", "--quiet", "-r", "good", "sharded", "gguf", "bad", "junk.safetensors")
    shutil.copytree(ROOT / "tests" / "fixtures" / "fracast", SCRATCH / "fracast")
    git(
        "add",
        "fracast/fracast_model.safetensors",
        "fracast/fracast.toml",
        "fracast/fracast_config.json",
    )
    code, out = pre_commit_run("spec.yaml")
    if code != 0 or checked(out) != {"fracast/fracast_model.safetensors"}:
        fail(f"pre-commit exited {code} on the fixture with its spec in args", out)
    if "spec: Fracast (fracast/fracast.toml)" not in out:
        fail("the spec from args is used", out)
    git("add", "fracast/fracast_model.int8.safetensors")
    code, out = pre_commit_run("spec.yaml")
    if code != 1 or "2 checkpoints: 1 matches, 1 does not match" not in out:
        fail(f"pre-commit exited {code} with the int8 copy staged", out)
    print("ok: the hook with --spec in args passes the fixture and fails its int8 copy")


if __name__ == "__main__":
    main()
