#!/usr/bin/env bash
# What `#[shapes::check]` on forward bodies adds to a crate's build (issue 29: under 10% for a
# crate of 20 checked forwards).
#
#   benches/forward_build_time.sh        # 20 models, 7 rebuilds of each variant
#   RUNS=11 benches/forward_build_time.sh
#
# Generates a throwaway crate that depends on this repository by path (`derive` on) and holds
# 20 modules, each in a file of its own, each a Llama attention (`#[derive(Shaped)]` struct of
# `Linear` layers and `dim = "…"` sizes, `#[shapes::check]` on its impl, a checked `repeat_kv`
# and a checked `forward` through reshapes, transposes, rope, `repeat_kv`, matmuls and
# softmax), a gated MLP with a checked `forward`, and a block whose checked `forward` calls
# both (read by their contracts): 60 checked forwards and 20 checked helpers. The types are the
# type-only candle stand-in of the UI tests (`tests/ui/support/candle.rs`): the analysis reads
# syntax only, and without candle's own compile time in the crate the macro's share is the
# largest it can be.
#
# Three builds of the same crate are timed in turn (the crate alone, without incremental
# compilation; the dependencies are built first): `checked` as written; `no_flow`, the same
# with `RUSTFLAGS="--cfg shapes_no_flow"` (the bodies not analysed: what the analysis itself
# costs is `checked / no_flow`); and `plain`, the same code without the `#[shapes::check]`
# attributes and the parameters' `#[shape]`s (the derive stays: what `#[check]` costs in all,
# run-time checks included, is `checked / plain`). Prints the median wall time of
# `cargo build` and `cargo check` of each, and the ratios.
set -euo pipefail

runs=${RUNS:-7}
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/shapes-forward-build.XXXXXX")
if [[ -z "${KEEP:-}" ]]; then
    trap 'rm -rf "$work"' EXIT
fi
export CARGO_INCREMENTAL=0
mkdir -p "$work/src"

cat >"$work/Cargo.toml" <<EOF
[package]
name = "forwardcost"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
shapes = { path = "$repo", default-features = false, features = ["derive"] }

[workspace]
EOF
cp "$repo/tests/ui/support/candle.rs" "$work/src/candle.rs"

model() {
    cat <<'EOF'
    use crate::candle::nn::{Linear, Module};
    use crate::candle::{Result, Tensor};
    use shapes::Shaped;

    #[derive(Shaped)]
    #[shapes(where = "q_dim = heads * head_dim", where = "kv_dim = kv_heads * head_dim")]
    pub struct Attention {
        #[shape(nested, rename(d_in = "d_model", d_out = "q_dim"))]
        q_proj: Linear,
        #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
        k_proj: Linear,
        #[shape(nested, rename(d_in = "d_model", d_out = "kv_dim"))]
        v_proj: Linear,
        #[shape(nested, rename(d_in = "q_dim", d_out = "d_model"))]
        o_proj: Linear,
        #[shape(dim = "heads")]
        num_heads: usize,
        #[shape(dim = "kv_heads")]
        num_kv_heads: usize,
        #[shape(dim = "head_dim")]
        head_dim: usize,
        #[shape(dim = "n_rep")]
        n_rep: usize,
    }

    #[shapes::check]
    impl Attention {
        #[shapes::check(self, ret = "(b, heads, s, head_dim)")]
        fn repeat_kv(&self, #[shape("(b, kv_heads, s, head_dim)")] x: &Tensor) -> Result<Tensor> {
            let (b, kv_heads, s, head_dim) = x.dims4()?;
            Tensor::cat(&vec![x; self.n_rep], 2)?.reshape((b, kv_heads * self.n_rep, s, head_dim))
        }

        #[shapes::check(self, ret = "(b, s, d_model)")]
        pub fn forward(
            &self,
            #[shape("(b, s, d_model)")] x: &Tensor,
            #[shape("(s, s)")] mask: &Tensor,
        ) -> Result<Tensor> {
            let (b, s, _) = x.dims3()?;
            let q = self.q_proj.forward(x)?;
            let k = self.k_proj.forward(x)?;
            let v = self.v_proj.forward(x)?;
            let q = q.reshape((b, s, self.num_heads, self.head_dim))?.transpose(1, 2)?.contiguous()?;
            let k = k.reshape((b, s, self.num_kv_heads, self.head_dim))?.transpose(1, 2)?;
            let v = v.reshape((b, s, self.num_kv_heads, self.head_dim))?.transpose(1, 2)?;
            let k = self.repeat_kv(&k.contiguous()?)?;
            let v = self.repeat_kv(&v.contiguous()?)?;
            let att = (q.matmul(&k.t()?)? / (self.head_dim as f64).sqrt())?;
            let att = crate::candle::ops::softmax_last_dim(&att.broadcast_add(mask)?)?;
            let y = att.matmul(&v)?.transpose(1, 2)?;
            self.o_proj.forward(&y.reshape((b, s, self.num_heads * self.head_dim))?)
        }
    }

    #[derive(Shaped)]
    pub struct Mlp {
        #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
        gate_proj: Linear,
        #[shape(nested, rename(d_in = "d_model", d_out = "d_ff"))]
        up_proj: Linear,
        #[shape(nested, rename(d_in = "d_ff", d_out = "d_model"))]
        down_proj: Linear,
    }

    #[shapes::check]
    impl Mlp {
        #[shapes::check(self, ret = "(b, s, d_model)")]
        pub fn forward(&self, #[shape("(b, s, d_model)")] x: &Tensor) -> Result<Tensor> {
            let gate = self.gate_proj.forward(x)?.silu()?;
            self.down_proj.forward(&(&gate * self.up_proj.forward(x)?)?)
        }
    }

    #[derive(Shaped)]
    pub struct Block {
        #[shape(nested)]
        attn: Attention,
        #[shape(nested)]
        mlp: Mlp,
    }

    #[shapes::check]
    impl Block {
        #[shapes::check(self, ret = "(b, s, d_model)")]
        pub fn forward(
            &self,
            #[shape("(b, s, d_model)")] x: &Tensor,
            #[shape("(s, s)")] mask: &Tensor,
        ) -> Result<Tensor> {
            let h = (x + self.attn.forward(x, mask)?)?;
            &h + self.mlp.forward(&h)?
        }
    }
EOF
}

# Each model in a file of its own, as a crate of models has them (the block reads its
# attention's and MLP's contracts from its file).
generate() {
    mkdir -p "$work/src/checked" "$work/src/plain"
    local i variant
    for ((i = 0; i < 20; i++)); do
        model >"$work/src/checked/m$i.rs"
        # The same code unchecked: no `#[shapes::check…]` line, no parameter `#[shape("…")]`.
        sed -e '/#\[shapes::check/d' -e 's/#\[shape("[^"]*")\] //' "$work/src/checked/m$i.rs" >"$work/src/plain/m$i.rs"
    done
    for variant in checked plain; do
        {
            echo "//! Generated by benches/forward_build_time.sh."
            echo "#[path = \"candle.rs\"]"
            echo "mod candle;"
            for ((i = 0; i < 20; i++)); do
                echo "#[path = \"$variant/m$i.rs\"]"
                echo "pub mod m$i;"
            done
        } >"$work/src/$variant.rs"
    done
}

# A variant: its source, and its own target directory (`no_flow` has its own RUSTFLAGS).
use_variant() {
    case $1 in
        no_flow)
            cp "$work/src/checked.rs" "$work/src/lib.rs"
            export RUSTFLAGS="--cfg shapes_no_flow"
            ;;
        *)
            cp "$work/src/$1.rs" "$work/src/lib.rs"
            unset RUSTFLAGS
            ;;
    esac
    export CARGO_TARGET_DIR="$work/target-$1"
}

median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

timed() {
    local start end
    start=$(date +%s.%N)
    cargo "$@" --quiet 2>/dev/null
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { print b - a }'
}

cd "$work"
generate
echo "building the dependencies in $work" >&2
for variant in checked no_flow plain; do
    use_variant "$variant"
    cargo build --quiet
    cargo check --quiet
done

declare -A build check
for ((r = 0; r < runs; r++)); do
    for variant in checked no_flow plain; do
        use_variant "$variant"
        build[$variant]+="$(timed build) "
        use_variant "$variant"
        check[$variant]+="$(timed check) "
    done
done

for variant in checked no_flow plain; do
    b=$(tr ' ' '\n' <<<"${build[$variant]}" | grep . | median)
    c=$(tr ' ' '\n' <<<"${check[$variant]}" | grep . | median)
    printf '%-9s cargo build %.3f s, cargo check %.3f s (medians of %d)\n' "$variant" "$b" "$c" "$runs"
    eval "b_$variant=$b; c_$variant=$c"
done
awk -v bc="$b_checked" -v bn="$b_no_flow" -v bp="$b_plain" \
    -v cc="$c_checked" -v cn="$c_no_flow" -v cp="$c_plain" 'BEGIN {
        printf "the analysis, checked / no_flow: build %.3f, check %.3f\n", bc / bn, cc / cn
        printf "#[check] in all, checked / plain: build %.3f, check %.3f\n", bc / bp, cc / cp
    }'
