//! `Checkpoint::open` on paths that are not plain weights files: a FIFO (refused before it
//! is opened, which would block), and a directory holding many candidates (an error that
//! names ten and counts the rest, however many there are). A directory searched past its
//! entry limit is `detect.rs`'s unit test.

use std::fs;
use std::path::Path;

use shapes::Checkpoint;

use crate::common::ckpt_files::{self, TempDir};

fn mkfifo(path: &Path) {
    let ok = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(ok.success());
}

#[test]
fn a_fifo_is_refused_before_it_is_opened() {
    let dir = TempDir::new("fifo");
    let fifo = dir.join("model.safetensors");
    mkfifo(&fifo);
    // Opening it would block until a writer came: the error comes first.
    let e = Checkpoint::open(&fifo).unwrap_err().to_string();
    assert_eq!(
        e,
        format!(
            "{}: a FIFO (named pipe), not a regular file or a directory: a checkpoint is read \
             from files (opening it could block forever)",
            fifo.display()
        )
    );
    // Through a symlink too; and a directory search skips it.
    let link = dir.join("link.npy");
    std::os::unix::fs::symlink(&fifo, &link).unwrap();
    assert!(
        Checkpoint::open(&link)
            .unwrap_err()
            .to_string()
            .contains("a FIFO")
    );
    fs::write(dir.join("w.npy"), ckpt_files::npy_bytes(&[2, 3])).unwrap();
    let c = Checkpoint::open(dir.path()).unwrap();
    assert_eq!(c.tensors().len(), 1);
}

#[test]
fn an_error_listing_files_names_ten_and_counts_the_rest() {
    let dir = TempDir::new("many-bins");
    for i in 0..50 {
        fs::File::create(dir.join(&format!("shard-{i:05}-with-a-long-name.bin"))).unwrap();
    }
    let e = Checkpoint::open(dir.path()).unwrap_err().to_string();
    let names: Vec<String> = (0..10)
        .map(|i| format!("shard-{i:05}-with-a-long-name.bin"))
        .collect();
    assert_eq!(
        e,
        format!(
            "{}: holds 50 .bin files ({} … and 40 more): open the one meant",
            dir.path().display(),
            names.join(", ")
        )
    );
}
