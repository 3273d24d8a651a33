//! The `pickle` target: PyTorch state-dict pickles whose containers are shared through the
//! memo (BINPUT/LONG_BINPUT/MEMOIZE, then BINGET/LONG_BINGET of dicts and tensors), read
//! back against a slow reference that expands the sharing as `torch.load` would (each path
//! its own name, a key given twice keeping its last value at its first place), wrapped in a
//! zip with data members that may be missing or short and views that may reach past their
//! storage, then mutated.

use super::Bytes;

/// A node of the generated structure: dicts and tensors, each emitted once and then reached
/// again through the memo.
#[derive(Debug, Clone)]
enum Node {
    /// `(dims, strides, offset, storage key)`.
    Tensor {
        dims: Vec<usize>,
        strides: Vec<usize>,
        offset: usize,
        key: usize,
    },
    /// Keys and the nodes they hold (earlier nodes only: a DAG).
    Dict(Vec<(String, usize)>),
}

/// Keys from a small alphabet without `.`, so that distinct paths are distinct names.
fn key(b: &mut Bytes<'_>) -> String {
    let len = usize::from(b.byte() % 3) + 1;
    (0..len)
        .map(|_| char::from(b"abcxyz"[usize::from(b.byte()) % 6]))
        .collect()
}

/// The nodes: a few tensors over a few storages, then dicts of earlier nodes. The last node
/// is the top-level dict.
fn nodes(b: &mut Bytes<'_>, storages: &[usize]) -> Vec<Node> {
    let mut out = Vec::new();
    let n_tensors = usize::from(b.byte() % 4) + 1;
    for _ in 0..n_tensors {
        let rank = usize::from(b.byte() % 3);
        let dims: Vec<usize> = (0..rank).map(|_| usize::from(b.byte() % 4)).collect();
        // Contiguous strides, or now and then one stretched past the storage.
        let mut strides = vec![0; rank];
        let mut s = 1;
        for i in (0..rank).rev() {
            strides[i] = s;
            s *= dims[i].max(1);
        }
        if b.byte().is_multiple_of(8)
            && let Some(st) = strides.first_mut()
        {
            *st += usize::from(b.byte() % 3);
        }
        let offset = if b.byte().is_multiple_of(8) {
            usize::from(b.byte() % 3)
        } else {
            0
        };
        let key = usize::from(b.byte()) % storages.len().max(1);
        out.push(Node::Tensor {
            dims,
            strides,
            offset,
            key,
        });
    }
    let n_dicts = usize::from(b.byte() % 5) + 1;
    for _ in 0..n_dicts {
        let len = usize::from(b.byte() % 4);
        let entries = (0..len)
            .map(|_| (key(b), usize::from(b.byte()) % out.len()))
            .collect();
        out.push(Node::Dict(entries));
    }
    out
}

/// Writes the pickle: each node the first time it is reached, memoized (BINPUT, LONG_BINPUT
/// or MEMOIZE, as `style` says), and a GET of its memo key every later time.
struct Writer {
    p: Vec<u8>,
    memo: Vec<Option<u32>>,
    next: u32,
    style: u8,
}

impl Writer {
    fn put(&mut self) -> u32 {
        let k = self.next;
        self.next += 1;
        match self.style % 3 {
            0 if k < 256 => self.p.extend([b'q', k as u8]),
            1 => {
                self.p.push(b'r');
                self.p.extend(k.to_le_bytes());
            }
            _ => self.p.push(0x94),
        }
        k
    }

    fn get(&mut self, k: u32) {
        if k < 256 && self.style.is_multiple_of(2) {
            self.p.extend([b'h', k as u8]);
        } else {
            self.p.push(b'j');
            self.p.extend(k.to_le_bytes());
        }
    }

    fn str(&mut self, s: &str) {
        self.p.push(b'X');
        self.p.extend((s.len() as u32).to_le_bytes());
        self.p.extend(s.as_bytes());
    }

    fn int(&mut self, n: usize) {
        self.p.push(b'J');
        self.p.extend((n as i32).to_le_bytes());
    }

    fn node(&mut self, nodes: &[Node], i: usize, storages: &[usize]) {
        if let Some(k) = self.memo[i] {
            return self.get(k);
        }
        match &nodes[i] {
            Node::Tensor {
                dims,
                strides,
                offset,
                key,
            } => {
                self.p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n(");
                self.p.push(b'(');
                self.str("storage");
                self.p.extend(b"ctorch\nFloatStorage\n");
                self.str(&key.to_string());
                self.str("cpu");
                self.int(storages[*key]);
                self.p.extend([b't', b'Q']);
                self.int(*offset);
                self.p.push(b'(');
                for d in dims {
                    self.int(*d);
                }
                self.p.extend([b't', b'(']);
                for s in strides {
                    self.int(*s);
                }
                self.p.extend([b't', 0x89, b'N', b't', b'R']);
            }
            Node::Dict(entries) => {
                self.p.extend([b'}']);
                let k = self.put();
                self.memo[i] = Some(k);
                self.p.push(b'(');
                for (key, child) in entries {
                    self.str(key);
                    self.node(nodes, *child, storages);
                }
                self.p.push(b'u');
                return;
            }
        }
        let k = self.put();
        self.memo[i] = Some(k);
    }
}

/// The names the state dict holds, expanded as `torch.load` would build them: `(name, node)`.
fn reference(nodes: &[Node], i: usize, prefix: &str, out: &mut Vec<(String, usize)>) {
    let Node::Dict(entries) = &nodes[i] else {
        return;
    };
    let mut merged: Vec<(&str, usize)> = Vec::new();
    for (k, child) in entries {
        match merged.iter_mut().find(|(m, _)| m == k) {
            Some(slot) => slot.1 = *child,
            None => merged.push((k, *child)),
        }
    }
    for (k, child) in merged {
        let name = if prefix.is_empty() {
            k.to_owned()
        } else {
            format!("{prefix}.{k}")
        };
        match &nodes[child] {
            Node::Tensor { .. } => out.push((name, child)),
            Node::Dict(_) => reference(nodes, child, &name, out),
        }
    }
}

/// Whether the tensor's view fits its storage of `numel` elements.
fn view_fits(dims: &[usize], strides: &[usize], offset: usize, numel: usize) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let last = offset
        + dims
            .iter()
            .zip(strides)
            .map(|(d, s)| (d - 1) * s)
            .sum::<usize>();
    last < numel
}

/// The zip checkpoint of `pickle`, with a data member of `len` bytes for each storage whose
/// length is `Some`.
fn pt_zip(pickle: &[u8], members: &[Option<usize>]) -> Vec<u8> {
    use std::io::Write;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    z.start_file("archive/data.pkl", opts).expect("member");
    z.write_all(pickle).expect("write");
    for (key, len) in members.iter().enumerate() {
        if let Some(len) = len {
            z.start_file(format!("archive/data/{key}"), opts)
                .expect("member");
            z.write_all(&vec![0u8; *len]).expect("write");
        }
    }
    z.finish().expect("finish").into_inner()
}

/// `levels` dicts each holding the one below twice: 2^levels names from a short pickle.
fn chain(levels: u32) -> Vec<u8> {
    let mut w = Writer {
        p: vec![0x80, 2, b'}', b'r'],
        memo: Vec::new(),
        next: 0,
        style: 1,
    };
    w.p.extend(0u32.to_le_bytes());
    w.p.push(b'(');
    w.str("w");
    w.p.extend(b"ctorch._utils\n_rebuild_tensor_v2\n((");
    w.str("storage");
    w.p.extend(b"ctorch\nFloatStorage\n");
    w.str("0");
    w.str("cpu");
    w.int(1);
    w.p.extend([
        b't', b'Q', b'K', 0, b')', b')', 0x89, b'N', b't', b'R', b'u',
    ]);
    for level in 1..=levels {
        w.p.extend([b'}', b'r']);
        w.p.extend(level.to_le_bytes());
        w.p.push(b'(');
        for k in ["a", "b"] {
            w.str(k);
            w.get(level - 1);
        }
        w.p.push(b'u');
    }
    w.p.push(b'.');
    w.p
}

pub fn check_pickle(data: &[u8]) {
    let mut b = Bytes::new(data);
    let mode = b.byte();
    if mode.is_multiple_of(16) {
        // The hostile shape: more names than a checkpoint may hold, refused before a walk.
        let levels = 21 + u32::from(b.byte() % 40);
        let e = shapes::__testing::checkpoint_fuzz::pickle_tensors(&chain(levels))
            .expect_err("2^21 names or more");
        assert!(e.contains("(MAX_TENSORS)"), "{e}");
        return;
    }
    let storages: Vec<usize> = (0..usize::from(b.byte() % 3) + 1)
        .map(|_| usize::from(b.byte() % 40))
        .collect();
    let nodes = nodes(&mut b, &storages);
    let top = nodes.len() - 1;
    let mut w = Writer {
        p: vec![0x80, if mode.is_multiple_of(2) { 2 } else { 4 }],
        memo: vec![None; nodes.len()],
        next: 0,
        style: b.byte(),
    };
    w.node(&nodes, top, &storages);
    w.p.push(b'.');
    let pickle = w.p;

    let mut expected = Vec::new();
    reference(&nodes, top, "", &mut expected);
    let read = shapes::__testing::checkpoint_fuzz::pickle_tensors(&pickle)
        .unwrap_or_else(|e| panic!("a valid pickle refused: {e}"));
    let got: Vec<(String, Vec<usize>)> = read
        .iter()
        .map(|(n, s, d)| {
            assert_eq!(d, "F32");
            (n.clone(), s.dims().to_vec())
        })
        .collect();
    let want: Vec<(String, Vec<usize>)> = expected
        .iter()
        .map(|(n, i)| match &nodes[*i] {
            Node::Tensor { dims, .. } => (n.clone(), dims.clone()),
            Node::Dict(_) => unreachable!("a tensor"),
        })
        .collect();
    assert_eq!(got, want);

    // In a zip: a storage's member may be missing or short, a view may reach past it.
    let members: Vec<Option<usize>> = storages
        .iter()
        .map(|&n| match b.byte() % 8 {
            0 => None,
            1 => Some((n * 4).saturating_sub(1)),
            _ => Some(n * 4),
        })
        .collect();
    let zip = pt_zip(&pickle, &members);
    let ok = expected.iter().all(|(_, i)| {
        let Node::Tensor {
            dims,
            strides,
            offset,
            key,
        } = &nodes[*i]
        else {
            return false;
        };
        members[*key].is_some_and(|len| len >= storages[*key] * 4)
            && view_fits(dims, strides, *offset, storages[*key])
    });
    match shapes::Checkpoint::from_bytes(&zip) {
        Ok(c) => {
            assert!(ok, "accepted a checkpoint torch.load refuses");
            let got: Vec<(String, Vec<usize>)> = c
                .tensors()
                .iter()
                .map(|t| (t.name.clone(), t.shape.dims().to_vec()))
                .collect();
            assert_eq!(got, want);
        }
        Err(e) => {
            assert!(!ok, "refused a good checkpoint: {e}");
            let text = e.to_string();
            assert!(text.starts_with("<memory>: tensor \""), "{text}");
        }
    }

    // Mutations: never a panic; what is accepted is sane.
    let mut pickle = pickle;
    while !pickle.is_empty() {
        let at = b.u64() as usize % pickle.len();
        let byte = b.byte();
        if byte == 0 {
            break;
        }
        pickle[at] = byte;
        if let Ok(ts) = shapes::__testing::checkpoint_fuzz::pickle_tensors(&pickle) {
            assert!(ts.len() <= 1 << 20);
            for (_, s, _) in ts {
                assert!(s.numel().is_some_and(|n| i64::try_from(n).is_ok()));
            }
        }
    }
}
