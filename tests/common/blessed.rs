//! A committed file that a test holds equal to what the code writes now (`SHAPES_BLESS=1`
//! rewrites it).

use std::path::Path;

/// Asserts that `file` (under the workspace root) holds `text`; with `SHAPES_BLESS` set,
/// writes `text` there first.
pub fn assert_blessed(file: &str, text: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    if std::env::var_os("SHAPES_BLESS").is_some() {
        std::fs::write(&path, text).expect("blessed");
    }
    let committed = std::fs::read_to_string(&path).expect("the committed file");
    assert_eq!(
        committed,
        text,
        "rerun with SHAPES_BLESS=1 to rewrite {}",
        path.display()
    );
}
