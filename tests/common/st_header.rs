//! Writes a safetensors header (8-byte length + JSON) for a list of tensor shapes, without the
//! data: enough for `verify_source`, which never reads tensor bytes.

use shapes::SafetensorsHeader;

/// The bytes of a safetensors file's header for these F16 tensors, laid out back to back; the
/// data section is left out, so it must be read with an unknown file length.
pub fn header_bytes(tensors: &[(String, Vec<usize>)]) -> Vec<u8> {
    let mut entries = Vec::with_capacity(tensors.len());
    let mut offset = 0usize;
    for (name, dims) in tensors {
        let bytes = dims.iter().product::<usize>() * 2;
        let dims: Vec<String> = dims.iter().map(ToString::to_string).collect();
        entries.push(format!(
            r#""{name}":{{"dtype":"F16","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            dims.join(","),
            offset + bytes
        ));
        offset += bytes;
    }
    let json = format!("{{{}}}", entries.join(","));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    out
}

/// The parsed header of [`header_bytes`] (read as a stream whose length is not known, so the
/// missing data section is not an error).
pub fn header(tensors: &[(String, Vec<usize>)]) -> SafetensorsHeader {
    SafetensorsHeader::read(&header_bytes(tensors)[..], None).expect("a well-formed header")
}
