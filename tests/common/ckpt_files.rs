//! Writes checkpoints the way their tools ship them, for `Checkpoint::open`'s tests and
//! benchmarks: safetensors (single, sharded with an index), GGUF (single, split), numpy
//! `.npy`/`.npz` (stored or deflated) and PyTorch zip checkpoints (the pickle protocol
//! `torch.save` writes). Tensor data is zeros; large files are extended with `set_len`
//! (sparse), so a BERT-sized checkpoint costs no disk.
#![allow(dead_code)]

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A tensor: name and dims (row-major).
pub type Tensor = (String, Vec<usize>);

/// A scratch directory under the system temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("shapes-{tag}-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp dir");
        TempDir(dir)
    }
    pub fn path(&self) -> &Path {
        &self.0
    }
    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn numel(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// A safetensors file of F16 tensors with `metadata`, data zero (sparse).
pub fn safetensors(path: &Path, tensors: &[Tensor], metadata: &[(&str, &str)]) {
    let mut entries = Vec::new();
    if !metadata.is_empty() {
        let kv: Vec<String> = metadata
            .iter()
            .map(|(k, v)| format!("{k:?}:{v:?}"))
            .collect();
        entries.push(format!("\"__metadata__\":{{{}}}", kv.join(",")));
    }
    let mut offset = 0usize;
    for (name, dims) in tensors {
        let bytes = numel(dims) * 2;
        let d: Vec<String> = dims.iter().map(ToString::to_string).collect();
        entries.push(format!(
            r#"{name:?}:{{"dtype":"F16","shape":[{}],"data_offsets":[{offset},{}]}}"#,
            d.join(","),
            offset + bytes
        ));
        offset += bytes;
    }
    let json = format!("{{{}}}", entries.join(","));
    let mut out = (json.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(json.as_bytes());
    let f = fs::File::create(path).expect("create");
    (&f).write_all(&out).expect("write");
    f.set_len((out.len() + offset) as u64).expect("set_len");
}

/// `tensors` split into `shards` files `model-0000i-of-0000n.safetensors` in `dir`, in
/// order, and their `model.safetensors.index.json`; returns the shard names.
pub fn sharded(dir: &Path, tensors: &[Tensor], shards: usize) -> Vec<String> {
    let per = tensors.len().div_ceil(shards);
    let mut names = Vec::new();
    let mut map = serde_json::Map::new();
    for (i, chunk) in tensors.chunks(per.max(1)).enumerate() {
        let name = format!("model-{:05}-of-{shards:05}.safetensors", i + 1);
        safetensors(&dir.join(&name), chunk, &[("format", "pt")]);
        for (t, _) in chunk {
            map.insert(t.clone(), serde_json::Value::String(name.clone()));
        }
        names.push(name);
    }
    let index = serde_json::json!({ "metadata": { "total_size": 0 }, "weight_map": map });
    fs::write(dir.join("model.safetensors.index.json"), index.to_string()).expect("index");
    names
}

/// A GGUF metadata value.
#[derive(Clone, Debug)]
pub enum Gv {
    U32(u32),
    Bool(bool),
    Str(String),
    StrArray(Vec<String>),
    F32Array(Vec<f32>),
}

fn gguf_string(out: &mut Vec<u8>, s: &str) {
    out.extend((s.len() as u64).to_le_bytes());
    out.extend(s.as_bytes());
}

/// The bytes of a GGUF v3 header (metadata, tensor infos of F16 tensors, padding) and the
/// length of the data section it describes.
pub fn gguf_header(kvs: &[(String, Gv)], tensors: &[Tensor]) -> (Vec<u8>, u64) {
    let mut f = b"GGUF".to_vec();
    f.extend(3u32.to_le_bytes());
    f.extend((tensors.len() as u64).to_le_bytes());
    f.extend((kvs.len() as u64).to_le_bytes());
    for (k, v) in kvs {
        gguf_string(&mut f, k);
        match v {
            Gv::U32(n) => {
                f.extend(4u32.to_le_bytes());
                f.extend(n.to_le_bytes());
            }
            Gv::Bool(b) => {
                f.extend(7u32.to_le_bytes());
                f.push(u8::from(*b));
            }
            Gv::Str(s) => {
                f.extend(8u32.to_le_bytes());
                gguf_string(&mut f, s);
            }
            Gv::StrArray(a) => {
                f.extend(9u32.to_le_bytes());
                f.extend(8u32.to_le_bytes());
                f.extend((a.len() as u64).to_le_bytes());
                for s in a {
                    gguf_string(&mut f, s);
                }
            }
            Gv::F32Array(a) => {
                f.extend(9u32.to_le_bytes());
                f.extend(6u32.to_le_bytes());
                f.extend((a.len() as u64).to_le_bytes());
                for x in a {
                    f.extend(x.to_le_bytes());
                }
            }
        }
    }
    let mut offset = 0u64;
    for (name, dims) in tensors {
        gguf_string(&mut f, name);
        f.extend((dims.len() as u32).to_le_bytes());
        for d in dims.iter().rev() {
            f.extend((*d as u64).to_le_bytes());
        }
        f.extend(1u32.to_le_bytes()); // F16
        f.extend(offset.to_le_bytes());
        offset += (numel(dims) as u64 * 2).next_multiple_of(32);
    }
    f.resize(f.len().next_multiple_of(32), 0);
    (f, offset)
}

/// A GGUF v3 file (data zero, sparse).
pub fn gguf(path: &Path, kvs: &[(String, Gv)], tensors: &[Tensor]) {
    let (head, data) = gguf_header(kvs, tensors);
    let f = fs::File::create(path).expect("create");
    (&f).write_all(&head).expect("write");
    f.set_len(head.len() as u64 + data).expect("set_len");
}

/// `tensors` split into `parts` GGUF files `{stem}-0000i-of-0000n.gguf` as gguf-split writes
/// them: the metadata in the first, `split.no`/`split.count` in each,
/// `split.tensors.count` in the first. Returns the paths.
pub fn split_gguf(
    dir: &Path,
    stem: &str,
    kvs: &[(String, Gv)],
    tensors: &[Tensor],
    parts: usize,
) -> Vec<PathBuf> {
    let per = tensors.len().div_ceil(parts);
    let mut paths = Vec::new();
    for (i, chunk) in tensors.chunks(per.max(1)).enumerate() {
        let mut meta: Vec<(String, Gv)> = Vec::new();
        if i == 0 {
            meta.extend(kvs.iter().cloned());
        }
        meta.push(("split.no".into(), Gv::U32(i as u32)));
        meta.push(("split.count".into(), Gv::U32(parts as u32)));
        if i == 0 {
            meta.push(("split.tensors.count".into(), Gv::U32(tensors.len() as u32)));
        }
        let path = dir.join(format!("{stem}-{:05}-of-{parts:05}.gguf", i + 1));
        gguf(&path, &meta, chunk);
        paths.push(path);
    }
    paths
}

/// A `.npy` file's bytes: an F32 array of `dims`, zeros.
pub fn npy_bytes(dims: &[usize]) -> Vec<u8> {
    let shape = match dims {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            dims.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + dict.len() + 1) % 64 != 0 {
        dict.push(' ');
    }
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend((dict.len() as u16).to_le_bytes());
    out.extend(dict.as_bytes());
    out.resize(out.len() + numel(dims) * 4, 0);
    out
}

/// A `.npz` archive of F32 arrays (`np.savez`, or `np.savez_compressed` when `deflated`).
pub fn npz(path: &Path, tensors: &[Tensor], deflated: bool) {
    let f = fs::File::create(path).expect("create");
    let mut z = zip::ZipWriter::new(f);
    let method = if deflated {
        zip::CompressionMethod::Deflated
    } else {
        zip::CompressionMethod::Stored
    };
    let opts = zip::write::SimpleFileOptions::default().compression_method(method);
    for (name, dims) in tensors {
        z.start_file(format!("{name}.npy"), opts).expect("member");
        z.write_all(&npy_bytes(dims)).expect("write");
    }
    z.finish().expect("finish");
}

/// One tensor of a PyTorch pickle as [`torch_pickle_with`] writes it: its name, size and
/// strides, and the storage it views (its key, element count and the view's offset).
#[derive(Debug, Clone)]
pub struct TorchTensor {
    pub name: String,
    pub dims: Vec<usize>,
    pub strides: Vec<usize>,
    pub key: String,
    pub storage_numel: usize,
    pub offset: usize,
}

impl TorchTensor {
    /// A contiguous F32 tensor with a storage of its own, key `key`.
    pub fn new(name: &str, dims: &[usize], key: usize) -> TorchTensor {
        let mut stride = 1;
        let mut strides = vec![0; dims.len()];
        for (i, d) in dims.iter().enumerate().rev() {
            strides[i] = stride;
            stride *= d;
        }
        TorchTensor {
            name: name.to_owned(),
            dims: dims.to_vec(),
            strides,
            key: key.to_string(),
            storage_numel: numel(dims),
            offset: 0,
        }
    }
}

/// Appends a `BINUNICODE` string.
pub fn pickle_str(p: &mut Vec<u8>, s: &str) {
    p.push(b'X');
    p.extend((s.len() as u32).to_le_bytes());
    p.extend(s.as_bytes());
}

/// Appends `torch._utils._rebuild_tensor_v2(storage, offset, size, stride, False,
/// OrderedDict())` for `t`, its storage the persistent id `('storage', torch.FloatStorage,
/// key, 'cpu', numel)`: the value torch writes for a tensor.
pub fn pickle_tensor(p: &mut Vec<u8>, t: &TorchTensor) {
    fn int(p: &mut Vec<u8>, n: usize) {
        p.push(b'J');
        p.extend((n as i32).to_le_bytes());
    }
    p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n");
    p.push(b'(');
    // The persistent id.
    p.push(b'(');
    pickle_str(p, "storage");
    p.extend(b"ctorch\nFloatStorage\n");
    pickle_str(p, &t.key);
    pickle_str(p, "cpu");
    int(p, t.storage_numel);
    p.push(b't');
    p.push(b'Q');
    int(p, t.offset);
    p.push(b'(');
    for d in &t.dims {
        int(p, *d);
    }
    p.push(b't');
    p.push(b'(');
    for s in &t.strides {
        int(p, *s);
    }
    p.push(b't');
    p.push(0x89); // requires_grad = False
    p.extend(b"ccollections\nOrderedDict\n");
    p.push(b')');
    p.push(b'R');
    p.push(b't');
    p.push(b'R');
}

/// The `data.pkl` of a `torch.save(state_dict)`, pickle protocol 2 as torch writes it: an
/// `OrderedDict` of `torch._utils._rebuild_tensor_v2(storage, 0, size, stride, False,
/// OrderedDict())`, each storage a persistent id `('storage', torch.FloatStorage, key,
/// 'cpu', numel)`, every value memoized as torch's pickler does.
pub fn torch_pickle(tensors: &[Tensor]) -> Vec<u8> {
    let tensors: Vec<TorchTensor> = tensors
        .iter()
        .enumerate()
        .map(|(key, (name, dims))| TorchTensor::new(name, dims, key))
        .collect();
    torch_pickle_with(&tensors)
}

/// [`torch_pickle`] of tensors described in full.
pub fn torch_pickle_with(tensors: &[TorchTensor]) -> Vec<u8> {
    let mut memo = 0u32;
    let mut put = |p: &mut Vec<u8>| {
        p.push(b'r');
        p.extend(memo.to_le_bytes());
        memo += 1;
    };
    let mut p = vec![0x80, 2];
    p.extend(b"ccollections\nOrderedDict\n");
    put(&mut p);
    p.push(b')');
    p.push(b'R');
    put(&mut p);
    p.push(b'(');
    for t in tensors {
        pickle_str(&mut p, &t.name);
        pickle_tensor(&mut p, t);
        put(&mut p);
    }
    p.push(b'u');
    p.push(b'.');
    p
}

/// A PyTorch zip checkpoint (`torch.save` since 1.6) of F32 tensors: `archive/data.pkl`,
/// `archive/version` and one stored `archive/data/{key}` per tensor.
pub fn pt(path: &Path, tensors: &[Tensor]) {
    let members: Vec<(String, usize)> = tensors
        .iter()
        .enumerate()
        .map(|(key, (_, dims))| (key.to_string(), numel(dims) * 4))
        .collect();
    fs::write(path, pt_bytes(&torch_pickle(tensors), &members)).expect("write");
}

/// A PyTorch zip checkpoint's bytes: `archive/data.pkl` holding `pickle`, `archive/version`,
/// and a stored `archive/data/{key}` of `len` zero bytes for each of `storages`.
pub fn pt_bytes(pickle: &[u8], storages: &[(String, usize)]) -> Vec<u8> {
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("archive/data.pkl", opts).expect("member");
    z.write_all(pickle).expect("write");
    z.start_file("archive/version", opts).expect("member");
    z.write_all(b"3\n").expect("write");
    for (key, len) in storages {
        z.start_file(format!("archive/data/{key}"), opts)
            .expect("member");
        z.write_all(&vec![0u8; *len]).expect("write");
    }
    z.finish().expect("finish").into_inner()
}

/// The shipped fracast checkpoint's tensors, in its header's order.
pub fn fracast_tensors() -> Vec<Tensor> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fracast/fracast_model.safetensors"
    );
    let h = shapes::checkpoint::SafetensorsHeader::read_path(path).expect("the shipped checkpoint");
    h.tensors()
        .iter()
        .map(|t| (t.name.clone(), t.shape.dims().to_vec()))
        .collect()
}

/// The shipped fracast config.
pub fn fracast_config() -> String {
    fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/fracast/fracast_config.json"
    ))
    .expect("the shipped config")
}
