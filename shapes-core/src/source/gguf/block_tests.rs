//! Every ggml type the reader knows, held to llama.cpp's block layout: a row of exactly one
//! block reads with that block's byte length, a row one element off is refused naming the
//! type and its block size, and data one byte short or one alignment step long is refused.

use super::{GgmlType, GgufError, GgufHeader};

/// (code, name, elements per block, bytes per block), written out independently of the
/// reader's table from llama.cpp's `ggml-common.h` block structs (`ggml_half` is 2 bytes,
/// `QK_K` 256) and `ggml.c`'s `type_traits`.
const LLAMA_CPP: &[(u32, &str, u64, u64)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 2 + 16),                  // d, qs[16]
    (3, "Q4_1", 32, 2 + 2 + 16),              // d, m, qs[16]
    (6, "Q5_0", 32, 2 + 4 + 16),              // d, qh[4], qs[16]
    (7, "Q5_1", 32, 2 + 2 + 4 + 16),          // d, m, qh[4], qs[16]
    (8, "Q8_0", 32, 2 + 32),                  // d, qs[32]
    (9, "Q8_1", 32, 2 + 2 + 32),              // d, s, qs[32]
    (10, "Q2_K", 256, 16 + 64 + 2 + 2),       // scales, qs, d, dmin
    (11, "Q3_K", 256, 32 + 64 + 12 + 2),      // hmask, qs, scales, d
    (12, "Q4_K", 256, 2 + 2 + 12 + 128),      // d, dmin, scales, qs
    (13, "Q5_K", 256, 2 + 2 + 12 + 32 + 128), // d, dmin, scales, qh, qs
    (14, "Q6_K", 256, 128 + 64 + 16 + 2),     // ql, qh, scales, d
    (15, "Q8_K", 256, 4 + 256 + 32),          // d (f32), qs, bsums[16] (i16)
    (16, "IQ2_XXS", 256, 2 + 64),             // d, qs[32] (u16)
    (17, "IQ2_XS", 256, 2 + 64 + 8),          // d, qs[32] (u16), scales[8]
    (18, "IQ3_XXS", 256, 2 + 96),             // d, qs[3 * 256 / 8]
    (19, "IQ1_S", 256, 2 + 32 + 16),          // d, qs[32], qh[8] (u16)
    (20, "IQ4_NL", 32, 2 + 16),               // d, qs[16]
    (21, "IQ3_S", 256, 2 + 64 + 32 + 8 + 4),  // d, qs, qh, signs, scales
    (22, "IQ2_S", 256, 2 + 64 + 8 + 8),       // d, qs[64], qh[8], scales[8]
    (23, "IQ4_XS", 256, 2 + 2 + 4 + 128),     // d, scales_h, scales_l, qs
    (24, "I8", 1, 1),
    (25, "I16", 1, 2),
    (26, "I32", 1, 4),
    (27, "I64", 1, 8),
    (28, "F64", 1, 8),
    (29, "IQ1_M", 256, 32 + 16 + 8), // qs, qh, scales
    (30, "BF16", 1, 2),
    (34, "TQ1_0", 256, 48 + 4 + 2), // qs[(256 - 16) / 5], qh[4], d
    (35, "TQ2_0", 256, 64 + 2),     // qs[64], d
    (39, "MXFP4", 32, 1 + 16),      // e, qs[16]
];

/// A GGUF v3 file of tensors `(name, row-major dims, ggml type, offset)`, with `data` bytes
/// after the header padded to 32.
fn gguf(tensors: &[(&str, &[u64], u32, u64)], data: u64) -> Vec<u8> {
    let mut f = b"GGUF".to_vec();
    f.extend(3u32.to_le_bytes());
    f.extend((tensors.len() as u64).to_le_bytes());
    f.extend(0u64.to_le_bytes());
    for (name, dims, ty, offset) in tensors {
        f.extend((name.len() as u64).to_le_bytes());
        f.extend(name.as_bytes());
        f.extend((dims.len() as u32).to_le_bytes());
        for d in dims.iter().rev() {
            f.extend(d.to_le_bytes());
        }
        f.extend(ty.to_le_bytes());
        f.extend(offset.to_le_bytes());
    }
    f.resize(f.len().next_multiple_of(32), 0);
    f.resize(f.len() + data as usize, 0);
    f
}

#[test]
fn the_readers_table_is_llama_cpps() {
    for &(code, name, block, bytes) in LLAMA_CPP {
        assert_eq!(GgmlType(code).name(), Some(name), "code {code}");
        assert_eq!(GgmlType(code).block(), Some((block, bytes)), "{name}");
    }
    // No other code is known: removed types (4, 5, 31–33, 36–38) and newer ones read with
    // their data extent unchecked.
    for code in 0..256 {
        if !LLAMA_CPP.iter().any(|t| t.0 == code) {
            assert_eq!(GgmlType(code).block(), None, "code {code}");
        }
    }
}

#[test]
fn one_block_reads_and_one_element_off_is_refused_for_every_type() {
    for &(code, name, block, bytes) in LLAMA_CPP {
        // Two rows of exactly one block, then an F32 tensor where the rows' data ends.
        let next = (2 * bytes).next_multiple_of(32);
        let good = gguf(
            &[("q", &[2, block], code, 0), ("f", &[1], 0, next)],
            next + 4,
        );
        let h = GgufHeader::from_bytes(&good).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(h.get("q").map(|t| t.ggml_type), Some(GgmlType(code)));
        assert_eq!(
            h.get("q").map(|t| t.shape.dims().to_vec()),
            Some(vec![2, block as usize]),
            "{name}"
        );

        // A row one element longer or shorter than a block (for a quantized type).
        if block > 1 {
            for dim in [block - 1, block + 1] {
                let f = gguf(&[("q", &[2, dim], code, 0)], 4 * bytes);
                let e = GgufHeader::from_bytes(&f).expect_err(name);
                assert!(
                    matches!(e, GgufError::PartialBlock { dim: d, block: b, .. } if d as u64 == dim && b == block),
                    "{name}: {e:?}"
                );
                assert!(
                    e.to_string().contains(&format!(
                        "innermost dim {dim} is not a multiple of {name}'s block size {block}"
                    )),
                    "{name}: {e}"
                );
            }
        }

        // The data one byte short of the rows' length.
        let short = gguf(&[("q", &[2, block], code, 0)], 2 * bytes - 1);
        let e = GgufHeader::from_bytes(&short).expect_err(name);
        assert!(
            matches!(e, GgufError::DataBeyondFile { .. }),
            "{name}: {e:?}"
        );

        // The next tensor one alignment step past where the rows end: the rows would be
        // longer than their type and shape say.
        let long = gguf(
            &[("q", &[2, block], code, 0), ("f", &[1], 0, next + 32)],
            next + 36,
        );
        let e = GgufHeader::from_bytes(&long).expect_err(name);
        assert!(
            matches!(e, GgufError::NotContiguous { offset, expected, .. } if offset == next + 32 && expected == next),
            "{name}: {e:?}"
        );
    }
}
