//! Writes a safetensors header (8-byte length + JSON) for a list of tensor shapes, without the
//! data: enough for `verify_source`, which never reads tensor bytes.

use shapes::checkpoint::SafetensorsHeader;

/// The bytes of a safetensors file's header for these F16 tensors, laid out back to back; the
/// data section is left out, so it must be read with an unknown file length.
pub fn header_bytes(tensors: &[(String, Vec<usize>)]) -> Vec<u8> {
    header_bytes_of(tensors, "F16", 2).0
}

/// The bytes of a safetensors file's header for tensors of `dtype` (`elem_bytes` bytes an
/// element) laid out back to back, and the length of the data section it describes.
pub fn header_bytes_of<N: AsRef<str>, D: AsRef<[usize]>>(
    tensors: &[(N, D)],
    dtype: &str,
    elem_bytes: usize,
) -> (Vec<u8>, usize) {
    let mut entries = Vec::with_capacity(tensors.len());
    let mut offset = 0usize;
    for (name, dims) in tensors {
        let (name, dims) = (name.as_ref(), dims.as_ref());
        let bytes = dims.iter().product::<usize>() * elem_bytes;
        let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
        entries.push(format!(
            r#""{name}":{{"dtype":"{dtype}","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            dims.join(","),
            offset + bytes
        ));
        offset += bytes;
    }
    let json = format!("{{{}}}", entries.join(","));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    (out, offset)
}

/// The parsed header of [`header_bytes`] (read as a stream whose length is not known, so the
/// missing data section is not an error).
pub fn header(tensors: &[(String, Vec<usize>)]) -> SafetensorsHeader {
    SafetensorsHeader::read(&header_bytes(tensors)[..], None).expect("a well-formed header")
}
