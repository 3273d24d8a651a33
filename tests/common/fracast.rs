//! The fracast-0 checkpoint (tests/fixtures/fracast/) described as `#[derive(Shaped)]` structs:
//! all 47 tensors, with the patterns written from fracast_config.json. Shared by
//! examples/verify_checkpoint.rs (verified from the safetensors header) and
//! tests/it/fracast_weights.rs (verified on the loaded tensors).
//!
//! The relations the config states, and where they show up:
//! - `d_model` (64) everywhere; FiLM's `to_gb` produces gamma and beta: `2 * d_model`.
//! - `ffn_mult` = 1.5: the conv blocks' FFN hidden size `ffn_hidden` satisfies
//!   `2 * ffn_hidden = 3 * d_model` (96); the head's decoder FFNs use `head_d_ff` (96).
//! - Both FFNs are gated (GLU): `up` produces value and gate halves, `(2 * d_ff, d_model)`.
//! - Depthwise convs: `(d_model, 1, kernel_size)` with `kernel_size` 3; the head's fc blocks
//!   use `head_fc_kernel` (3), there are `head_fc_layers` (2) of them and `head_layers` (1)
//!   decoder FFNs and norms, both counts discovered from the names.
//! - Periodic features: sin and cos of `periodic_topk` (4) periods: `2 * periodic_topk` inputs
//!   (with `periodic_harmonics` = 1).
//! - `scale_cond_dim` (8), `max_future_patches` (6), `horizon` (48) queries, `n_quantiles` (9
//!   entries of `quantiles`).
//! - Two widths the config does not state are bound from the tensors and reported:
//!   `n_in_features` (the core's input projection, 7) and `n_summary_features` (133).

use std::path::{Path, PathBuf};

use shapes::Shaped;

/// A gated feed-forward block: `up` yields the value and gate halves, `down` maps back.
#[derive(Shaped)]
pub struct Ffn<T> {
    #[shape("(2 * d_ff, d_model)", name = "up.weight")]
    pub up_w: T,
    #[shape("(2 * d_ff,)", name = "up.bias")]
    pub up_b: T,
    #[shape("(d_model, d_ff)", name = "down.weight")]
    pub down_w: T,
    #[shape("(d_model,)", name = "down.bias")]
    pub down_b: T,
}

/// A separable conv block: depthwise conv, pointwise projection, gated FFN, two norms.
#[derive(Shaped)]
#[shapes(where = "2 * ffn_hidden = 3 * d_model")]
pub struct ConvBlock<T> {
    #[shape("(d_model, 1, kernel_size)")]
    pub dw_weight: T,
    #[shape("(d_model,)")]
    pub dw_bias: T,
    #[shape(nested, rename(d_ff = "ffn_hidden"))]
    pub ffn: Ffn<T>,
    #[shape("(d_model,)", name = "norm1.weight")]
    pub norm1: T,
    #[shape("(d_model,)", name = "norm2.weight")]
    pub norm2: T,
    #[shape("(d_model, d_model)", name = "pw.weight")]
    pub pw_w: T,
    #[shape("(d_model,)", name = "pw.bias")]
    pub pw_b: T,
}

/// The backbone: input projection, periodic features, FiLM scale conditioning, one shared
/// conv block (`share_stages`), a final norm.
#[derive(Shaped)]
pub struct Core<T> {
    #[shape(nested)]
    pub block: ConvBlock<T>,
    #[shape("(d_model, n_in_features)", name = "in_proj.weight")]
    pub in_proj_w: T,
    #[shape("(d_model,)", name = "in_proj.bias")]
    pub in_proj_b: T,
    #[shape("(d_model,)", name = "norm.weight")]
    pub norm: T,
    #[shape("(d_model, 2 * periodic_topk)", name = "periodic.proj.weight")]
    pub periodic_w: T,
    #[shape("(d_model,)", name = "periodic.proj.bias")]
    pub periodic_b: T,
    #[shape("(2 * d_model, scale_cond_dim)", name = "scale.to_gb.weight")]
    pub film_w: T,
    #[shape("(2 * d_model,)", name = "scale.to_gb.bias")]
    pub film_b: T,
}

/// A LayerNorm-style weight.
#[derive(Shaped)]
pub struct Norm<T> {
    #[shape("(d_model,)")]
    pub weight: T,
}

/// One of the head's fc blocks: a depthwise conv with its own kernel size and a norm.
#[derive(Shaped)]
pub struct FcBlock<T> {
    #[shape("(d_model, 1, head_fc_kernel)")]
    pub dw_weight: T,
    #[shape("(d_model,)")]
    pub dw_bias: T,
    #[shape("(d_model,)", name = "norm.weight")]
    pub norm: T,
}

/// The future-patch conv: projects the patches in, one conv block (the core's sizes), out.
#[derive(Shaped)]
pub struct FutureConv<T> {
    #[shape(nested)]
    pub block: ConvBlock<T>,
    #[shape("(d_model, max_future_patches)", name = "in_proj.weight")]
    pub in_proj_w: T,
    #[shape("(d_model,)", name = "in_proj.bias")]
    pub in_proj_b: T,
    #[shape("(d_model, d_model)", name = "out_proj.weight")]
    pub out_proj_w: T,
    #[shape("(d_model,)", name = "out_proj.bias")]
    pub out_proj_b: T,
}

/// The gather head: decoder FFNs and norms (`head_layers` of each), fc blocks, the future
/// conv, `horizon` learned queries, the quantile output.
#[derive(Shaped)]
pub struct Head<T> {
    #[shape(nested, count = "head_layers", rename(d_ff = "head_d_ff"))]
    pub decoder_ffns: Vec<Ffn<T>>,
    #[shape(nested, count = "head_layers")]
    pub decoder_norms: Vec<Norm<T>>,
    #[shape(nested, count = "head_fc_layers")]
    pub fc_blocks: Vec<FcBlock<T>>,
    #[shape(nested)]
    pub future_conv: FutureConv<T>,
    #[shape("(n_quantiles, d_model)", name = "out_proj.weight")]
    pub out_proj_w: T,
    #[shape("(n_quantiles,)", name = "out_proj.bias")]
    pub out_proj_b: T,
    #[shape("(horizon, d_model)")]
    pub queries: T,
    #[shape("(d_model, n_summary_features)", name = "summary_proj.weight")]
    pub summary_w: T,
    #[shape("(d_model,)", name = "summary_proj.bias")]
    pub summary_b: T,
}

/// The whole fracast-0 parameter set: 47 tensors.
#[derive(Shaped)]
pub struct Fracast<T> {
    #[shape(nested)]
    pub core: Core<T>,
    #[shape(nested)]
    pub head: Head<T>,
}

/// The shipped checkpoint.
pub fn checkpoint() -> PathBuf {
    fixture("fracast_model.safetensors")
}

/// The model config next to it.
pub fn config() -> PathBuf {
    fixture("fracast_config.json")
}

/// `tests/fixtures/fracast/<file>` in the repository. This file is compiled into the tests of
/// the `shapes` package, whose directory is the repository root, and into the examples of the
/// `shapes-examples` package, one level down in `examples/`.
fn fixture(file: &str) -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = match package.parent() {
        Some(parent) if !package.join("tests/fixtures").is_dir() => parent,
        _ => package,
    };
    root.join("tests/fixtures/fracast").join(file)
}

/// The values fracast_config.json gives for the struct's variables, derived as the model code
/// derives them (`ffn_hidden = ffn_mult * d_model`, `n_quantiles = len(quantiles)`, …).
/// Variables the config does not state are absent.
pub fn config_values(config: &serde_json::Value) -> Result<Vec<(&'static str, usize)>, String> {
    let m = &config["model"];
    let int = |key: &str| -> Result<usize, String> {
        m[key]
            .as_u64()
            .and_then(|v| usize::try_from(v).ok())
            .ok_or_else(|| format!("config: model.{key} is not a whole number"))
    };
    let d_model = int("d_model")?;
    let ffn_mult = m["ffn_mult"]
        .as_f64()
        .ok_or("config: model.ffn_mult is not a number")?;
    let ffn_hidden = ffn_mult * d_model as f64;
    if ffn_hidden.fract() != 0.0 || ffn_hidden < 0.0 {
        return Err(format!(
            "config: ffn_mult * d_model = {ffn_hidden} is not whole"
        ));
    }
    let harmonics = int("periodic_harmonics")?;
    let quantiles = m["quantiles"]
        .as_array()
        .ok_or("config: model.quantiles is not a list")?
        .len();
    Ok(vec![
        ("d_model", d_model),
        ("kernel_size", int("kernel_size")?),
        ("ffn_hidden", ffn_hidden as usize),
        ("periodic_topk", int("periodic_topk")? * harmonics),
        ("scale_cond_dim", int("scale_cond_dim")?),
        ("head_layers", int("head_layers")?),
        ("head_d_ff", int("head_d_ff")?),
        ("head_fc_layers", int("head_fc_layers")?),
        ("head_fc_kernel", int("head_fc_kernel")?),
        ("max_future_patches", int("max_future_patches")?),
        ("n_quantiles", quantiles),
        ("horizon", int("horizon")?),
    ])
}

/// Builds the struct from tensors taken by checkpoint name (e.g. from a loaded safetensors
/// file); `has` tells whether a name exists, to count the list elements. A missing tensor
/// is an error naming it.
pub fn from_tensors<T>(
    mut take: impl FnMut(&str) -> Option<T>,
    has: impl Fn(&str) -> bool,
) -> Result<Fracast<T>, String> {
    let mut get = |name: String| take(&name).ok_or(format!("no tensor {name:?}"));
    let count = |prefix: &str| {
        (0..)
            .take_while(|i| {
                has(&format!("{prefix}.{i}.dw_bias"))
                    || has(&format!("{prefix}.{i}.weight"))
                    || has(&format!("{prefix}.{i}.up.weight"))
            })
            .count()
    };
    let block = |get: &mut dyn FnMut(String) -> Result<T, String>,
                 p: &str|
     -> Result<ConvBlock<T>, String> {
        Ok(ConvBlock {
            dw_weight: get(format!("{p}.dw_weight"))?,
            dw_bias: get(format!("{p}.dw_bias"))?,
            ffn: ffn(get, &format!("{p}.ffn"))?,
            norm1: get(format!("{p}.norm1.weight"))?,
            norm2: get(format!("{p}.norm2.weight"))?,
            pw_w: get(format!("{p}.pw.weight"))?,
            pw_b: get(format!("{p}.pw.bias"))?,
        })
    };
    fn ffn<T>(get: &mut dyn FnMut(String) -> Result<T, String>, p: &str) -> Result<Ffn<T>, String> {
        Ok(Ffn {
            up_w: get(format!("{p}.up.weight"))?,
            up_b: get(format!("{p}.up.bias"))?,
            down_w: get(format!("{p}.down.weight"))?,
            down_b: get(format!("{p}.down.bias"))?,
        })
    }
    let core = Core {
        block: block(&mut get, "core.block")?,
        in_proj_w: get("core.in_proj.weight".into())?,
        in_proj_b: get("core.in_proj.bias".into())?,
        norm: get("core.norm.weight".into())?,
        periodic_w: get("core.periodic.proj.weight".into())?,
        periodic_b: get("core.periodic.proj.bias".into())?,
        film_w: get("core.scale.to_gb.weight".into())?,
        film_b: get("core.scale.to_gb.bias".into())?,
    };
    let decoder_ffns = (0..count("head.decoder_ffns"))
        .map(|i| ffn(&mut get, &format!("head.decoder_ffns.{i}")))
        .collect::<Result<_, _>>()?;
    let decoder_norms = (0..count("head.decoder_norms"))
        .map(|i| {
            Ok(Norm {
                weight: get(format!("head.decoder_norms.{i}.weight"))?,
            })
        })
        .collect::<Result<_, String>>()?;
    let fc_blocks = (0..count("head.fc_blocks"))
        .map(|i| {
            let p = format!("head.fc_blocks.{i}");
            Ok(FcBlock {
                dw_weight: get(format!("{p}.dw_weight"))?,
                dw_bias: get(format!("{p}.dw_bias"))?,
                norm: get(format!("{p}.norm.weight"))?,
            })
        })
        .collect::<Result<_, String>>()?;
    let future_conv = FutureConv {
        block: block(&mut get, "head.future_conv.block")?,
        in_proj_w: get("head.future_conv.in_proj.weight".into())?,
        in_proj_b: get("head.future_conv.in_proj.bias".into())?,
        out_proj_w: get("head.future_conv.out_proj.weight".into())?,
        out_proj_b: get("head.future_conv.out_proj.bias".into())?,
    };
    let head = Head {
        decoder_ffns,
        decoder_norms,
        fc_blocks,
        future_conv,
        out_proj_w: get("head.out_proj.weight".into())?,
        out_proj_b: get("head.out_proj.bias".into())?,
        queries: get("head.queries".into())?,
        summary_w: get("head.summary_proj.weight".into())?,
        summary_b: get("head.summary_proj.bias".into())?,
    };
    Ok(Fracast { core, head })
}
