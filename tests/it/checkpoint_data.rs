//! numpy arrays whose data does not hold what their header says are refused, as numpy
//! refuses them: a `.npy` file, and an `.npz` member (its size read from the zip directory,
//! nothing inflated). Each error names the array.

use std::fs;

use shapes::Checkpoint;

use crate::common::ckpt_files::{self, TempDir};

#[test]
fn an_npy_file_shorter_than_its_shape_is_refused() {
    let dir = TempDir::new("short-npy");
    let mut bytes = ckpt_files::npy_bytes(&[2, 3]);
    let path = dir.join("w.npy");
    fs::write(&path, &bytes).unwrap();
    assert!(Checkpoint::open(&path).is_ok());
    bytes.pop();
    fs::write(&path, &bytes).unwrap();
    assert_eq!(
        Checkpoint::open(&path).unwrap_err().to_string(),
        format!(
            "{}: array \"w\": its (2, 3) F32 elements need 24 bytes of data, but 23 follow the header",
            path.display()
        )
    );
    // In memory, and with more data than the shape needs (numpy reads what it needs).
    let e = Checkpoint::from_bytes(&bytes).unwrap_err().to_string();
    assert!(
        e.starts_with("<memory>: array \"array\": its (2, 3) F32"),
        "{e}"
    );
    bytes.extend([0; 9]);
    assert!(Checkpoint::from_bytes(&bytes).is_ok());
}

/// An `.npz` of the arrays `(name, bytes)`, stored or deflated.
fn npz(members: &[(&str, Vec<u8>)], deflated: bool) -> Vec<u8> {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if deflated {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, bytes) in members {
        z.start_file(*name, opts).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap().into_inner()
}

#[test]
fn an_npz_member_shorter_than_its_shape_is_refused() {
    let good = ckpt_files::npy_bytes(&[1000, 1000]);
    let mut short = good.clone();
    short.truncate(good.len() - 4);
    for deflated in [false, true] {
        let ok = npz(
            &[("a.npy", good.clone()), ("notes.txt", b"hi".to_vec())],
            deflated,
        );
        let c = Checkpoint::from_bytes(&ok).unwrap();
        assert_eq!(c.tensors().len(), 1, "the text member is not an array");
        let bad = npz(
            &[("a.npy", good.clone()), ("b.npy", short.clone())],
            deflated,
        );
        assert_eq!(
            Checkpoint::from_bytes(&bad).unwrap_err().to_string(),
            "<memory>: member \"b.npy\": its (1000, 1000) F32 elements need 4000000 bytes of \
             data, but 3999996 follow the header"
        );
    }
    // A zip with no array and no data.pkl is neither format.
    let none = npz(&[("notes.txt", b"hi".to_vec())], false);
    assert!(
        Checkpoint::from_bytes(&none)
            .unwrap_err()
            .to_string()
            .contains("no .npy member and no data.pkl")
    );
}
