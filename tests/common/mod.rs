//! What several tests share: model structs, a header writer and the fuzz targets' checks. The
//! examples, the benches and the fuzz targets include single files of it with `#[path]`.

// Each file is also compiled into an example or a bench that uses the rest of it.
#[allow(dead_code)]
pub mod bert;
pub mod blessed;
pub mod ckpt_files;
pub mod deepseek;
#[cfg(feature = "candle")]
pub mod fracast;
pub mod fuzz_checks;
pub mod llama;
pub mod parity_model;
pub mod st_header;
