//! PyTorch zip checkpoints read the way `torch.load` reads them, bounded on hostile pickles:
//! dicts shared through the pickle's memo are flattened within the tensor limit (counted
//! before any name is built), a key given twice keeps its last value as a Python dict does,
//! and every tensor is checked against its storage and the storage against its data member.

use shapes::{Checkpoint, ShapeSource};

use crate::common::ckpt_files::{
    TorchTensor, pickle_str, pickle_tensor, pt_bytes, torch_pickle_with,
};

fn err(bytes: &[u8]) -> String {
    Checkpoint::from_bytes(bytes).unwrap_err().to_string()
}

/// `levels` nested dicts, each holding the level below twice (under `a` and `b`) through the
/// memo: 2^levels names from a pickle of a few hundred bytes.
fn shared_levels(levels: u32) -> Vec<u8> {
    let mut p = vec![0x80, 2, b'}', b'('];
    pickle_str(&mut p, "w");
    pickle_tensor(&mut p, &TorchTensor::new("w", &[2], 0));
    p.extend([b'u', b'r']);
    p.extend(0u32.to_le_bytes());
    for level in 1..=levels {
        p.extend([b'}', b'(']);
        for key in ["a", "b"] {
            pickle_str(&mut p, key);
            p.push(b'j');
            p.extend((level - 1).to_le_bytes());
        }
        p.extend([b'u', b'r']);
        p.extend(level.to_le_bytes());
    }
    p.push(b'.');
    p
}

#[test]
fn dicts_shared_through_the_memo_are_counted_before_they_are_flattened() {
    let pickle = shared_levels(40);
    assert!(pickle.len() < 1_500, "{}", pickle.len());
    let e = err(&pt_bytes(&pickle, &[("0".into(), 8)]));
    assert_eq!(
        e,
        "<memory>: archive/data.pkl: its dicts name 1099511627776 tensors (a dict shared \
         through the memo counts each time it is reached), more than the 1048576 \
         (MAX_TENSORS) a checkpoint may hold"
    );
    // A few levels of sharing are a few names, each path its own.
    let c = Checkpoint::from_bytes(&pt_bytes(&shared_levels(3), &[("0".into(), 8)])).unwrap();
    assert_eq!(c.tensors().len(), 8);
    assert_eq!(c.shape_of("a.b.a.w"), Some(&[2][..]));
    assert_eq!(c.shape_of("b.b.b.w"), Some(&[2][..]));
}

/// `levels` nested dicts each holding the level below twice, over a dict of `ints` ints and,
/// with `tensor`, one tensor; the top dict holds the levels under `levels` and a tensor `w`.
fn shared_ints(levels: u32, ints: usize, tensor: bool) -> Vec<u8> {
    let mut p = vec![0x80, 2, b'}', b'('];
    for i in 0..ints {
        pickle_str(&mut p, &format!("k{i}"));
        p.extend([b'K', 1]);
    }
    if tensor {
        pickle_str(&mut p, "t");
        pickle_tensor(&mut p, &TorchTensor::new("t", &[2], 0));
    }
    p.extend([b'u', b'r']);
    p.extend(0u32.to_le_bytes());
    for level in 1..=levels {
        p.extend([b'}', b'(']);
        for key in ["a", "b"] {
            pickle_str(&mut p, key);
            p.push(b'j');
            p.extend((level - 1).to_le_bytes());
        }
        p.extend([b'u', b'r']);
        p.extend(level.to_le_bytes());
    }
    p.extend([b'}', b'(']);
    pickle_str(&mut p, "levels");
    p.push(b'j');
    p.extend(levels.to_le_bytes());
    pickle_str(&mut p, "w");
    pickle_tensor(&mut p, &TorchTensor::new("w", &[2], 0));
    p.extend([b'u', b'.']);
    p
}

#[test]
fn shared_dicts_are_walked_only_where_they_name_tensors_and_within_a_budget() {
    // No tensor below the shared levels: nothing there is walked, however often it is shared.
    let c = Checkpoint::from_bytes(&pt_bytes(&shared_ints(40, 1000, false), &[("0".into(), 8)]))
        .unwrap();
    let names: Vec<&str> = c.tensors().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["w"]);
    // A tensor beside 1000 ints, reached 2^15 times: few names, but 33 million entries to
    // walk, refused before the walk.
    let e = err(&pt_bytes(&shared_ints(15, 1000, true), &[("0".into(), 8)]));
    assert_eq!(
        e,
        "<memory>: archive/data.pkl: walking its dicts to name their tensors visits 32866304 \
         entries (a dict shared through the memo counts each time it is reached), more than \
         the 16777216 (MAX_FLATTEN_STEPS) read"
    );
    let c = Checkpoint::from_bytes(&pt_bytes(&shared_ints(10, 1000, true), &[("0".into(), 8)]))
        .unwrap();
    assert_eq!(c.tensors().len(), 1025);
}

#[test]
fn a_dict_memoized_before_its_items_has_them_when_reached_again() {
    // {'a': d, 'b': d} with d = {'w': t}, as Python's pickler writes it: d is memoized while
    // empty, filled on the stack, then reached again through the memo.
    let mut p = vec![0x80, 2, b'}', b'q', 0, b'('];
    pickle_str(&mut p, "a");
    p.extend([b'}', b'q', 1, b'(']);
    pickle_str(&mut p, "w");
    pickle_tensor(&mut p, &TorchTensor::new("w", &[2, 3], 0));
    p.push(b'u');
    pickle_str(&mut p, "b");
    p.extend([b'h', 1, b'u', b'.']);
    let c = Checkpoint::from_bytes(&pt_bytes(&p, &[("0".into(), 24)])).unwrap();
    let names: Vec<&str> = c.tensors().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a.w", "b.w"]);
}

#[test]
fn a_key_given_twice_keeps_its_last_value_like_a_python_dict() {
    // A long key twice: torch.load keeps the second value at the first one's place. Nothing
    // quotes the key.
    let long = "k".repeat(1 << 20);
    let mut first = TorchTensor::new(&long, &[2], 0);
    let second = TorchTensor::new(&long, &[3, 4], 1);
    first.name = long.clone();
    let z = TorchTensor::new("z", &[5], 2);
    let pickle = torch_pickle_with(&[first, z, second]);
    let storages = [("0".into(), 8), ("1".into(), 48), ("2".into(), 20)];
    let c = Checkpoint::from_bytes(&pt_bytes(&pickle, &storages)).unwrap();
    let names: Vec<usize> = c.tensors().iter().map(|t| t.name.len()).collect();
    assert_eq!(names, [1 << 20, 1]);
    assert_eq!(c.shape_of(&long), Some(&[3, 4][..]));
}

/// The checkpoint of `tensors`, each storage's data member `len` bytes (`None`: absent).
fn pt_of(tensors: &[TorchTensor], lens: &[Option<usize>]) -> Vec<u8> {
    let storages: Vec<(String, usize)> = tensors
        .iter()
        .zip(lens)
        .filter_map(|(t, len)| Some((t.key.clone(), (*len)?)))
        .collect();
    pt_bytes(&torch_pickle_with(tensors), &storages)
}

#[test]
fn tensors_are_checked_against_their_storages_and_the_storages_against_their_data() {
    let w = TorchTensor::new("w", &[1000, 1000], 0);
    let ok = pt_of(std::slice::from_ref(&w), &[Some(4_000_000)]);
    assert_eq!(
        Checkpoint::from_bytes(&ok).unwrap().shape_of("w"),
        Some(&[1000, 1000][..])
    );

    let cases: Vec<(TorchTensor, Option<usize>, &str)> = vec![
        (
            w.clone(),
            None,
            "<memory>: tensor \"w\": its storage \"0\" has no data member \"archive/data/0\"",
        ),
        (
            w.clone(),
            Some(24),
            "<memory>: tensor \"w\": storage \"0\" of 1000000 F32 elements needs 4000000 bytes, \
             but \"archive/data/0\" holds 24",
        ),
        (
            TorchTensor {
                storage_numel: 6,
                ..w.clone()
            },
            Some(24),
            "<memory>: tensor \"w\": size (1000, 1000) with strides (1000, 1) from offset 0 \
             reaches element 999999 of its storage \"0\", which has 6",
        ),
        (
            TorchTensor {
                strides: vec![1001, 1],
                ..w.clone()
            },
            Some(4_000_000),
            "<memory>: tensor \"w\": size (1000, 1000) with strides (1001, 1) from offset 0 \
             reaches element 1000998 of its storage \"0\", which has 1000000",
        ),
        (
            TorchTensor {
                offset: 1,
                ..w.clone()
            },
            Some(4_000_000),
            "<memory>: tensor \"w\": size (1000, 1000) with strides (1000, 1) from offset 1 \
             reaches element 1000000 of its storage \"0\", which has 1000000",
        ),
        (
            TorchTensor {
                strides: vec![1000],
                ..w.clone()
            },
            Some(4_000_000),
            "<memory>: tensor \"w\": 2 dims but 1 strides",
        ),
    ];
    for (t, len, expected) in cases {
        assert_eq!(
            err(&pt_of(std::slice::from_ref(&t), &[len])),
            expected,
            "{t:?}"
        );
    }
    // An empty tensor reaches no element; views sharing a storage are fine.
    let empty = TorchTensor {
        storage_numel: 0,
        ..TorchTensor::new("e", &[0, 5], 0)
    };
    let row = TorchTensor {
        name: "row".into(),
        dims: vec![1000],
        strides: vec![1],
        offset: 999_000,
        ..w.clone()
    };
    let c = Checkpoint::from_bytes(&pt_of(&[empty], &[Some(0)])).unwrap();
    assert_eq!(c.shape_of("e"), Some(&[0, 5][..]));
    let both = pt_bytes(
        &torch_pickle_with(&[w.clone(), row]),
        &[("0".into(), 4_000_000)],
    );
    assert_eq!(Checkpoint::from_bytes(&both).unwrap().tensors().len(), 2);
}
