//! A bounded reader of the pickles PyTorch writes (`data.pkl` in a `torch.save` zip): it runs
//! no code, only the opcodes a state dict uses, and rebuilds each tensor's name, shape and
//! dtype from its `torch._utils._rebuild_tensor_v2` call and its storage's persistent id
//! `('storage', torch.FloatStorage, key, location, numel)`. Storage bytes are never read.
//!
//! Hand-written: the pickle crates (`serde-pickle`, `pickle`) refuse or drop the `GLOBAL`,
//! `REDUCE` and `BINPERSID` opcodes a torch checkpoint is made of, and candle's reader needs
//! the whole tensor library. Bounded: the stack, the memo, nesting depth and the total size
//! of the values built are capped, and containers are shared copy-on-write, so a small
//! hostile pickle cannot build an exponentially large value.

use std::collections::HashMap;
use std::rc::Rc;

use crate::shape::Shape;

mod flatten;

/// The most values on the stack.
const MAX_STACK: usize = 1 << 20;
/// The most memo entries.
const MAX_MEMO: usize = 1 << 20;
/// How deep containers may nest.
const MAX_DEPTH: u32 = 64;
/// The most container slots written or copied over the whole pickle.
const MAX_CELLS: usize = 1 << 24;
/// The most dims a tensor may have.
const MAX_DIMS: usize = 64;

/// A tensor found in the pickle, under one of its names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PickledTensor {
    pub(crate) name: String,
    pub(crate) tensor: Rc<Rebuilt>,
}

/// What a `_rebuild_tensor_v2` call rebuilds: the tensor's shape and dtype, and the view of
/// its storage it is (which `pt` checks against the storage's data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rebuilt {
    pub(crate) shape: Shape,
    pub(crate) dtype: String,
    /// The storage's key: its data is the archive's member `data/KEY`.
    pub(crate) key: Rc<str>,
    /// The storage's element count, as its persistent id states it.
    pub(crate) storage_numel: usize,
    /// Bytes per element of the storage's type, when it is one torch has.
    pub(crate) element_size: Option<usize>,
    /// The view: the offset of its first element in the storage, and a stride per dim.
    pub(crate) offset: usize,
    pub(crate) strides: Vec<usize>,
}

#[derive(Debug, Clone)]
pub(super) struct Seq {
    pub(super) items: Rc<Vec<V>>,
    depth: u32,
}

#[derive(Debug, Clone)]
pub(super) enum V {
    Mark,
    None,
    Bool,
    Int(i64),
    Other,
    Str(Rc<str>),
    Tuple(Seq),
    List(Seq),
    /// Keys and values alternating.
    Dict(Seq),
    Global(Rc<str>),
    Persid(Seq),
    Tensor(Rc<Rebuilt>),
}

impl V {
    fn depth(&self) -> u32 {
        match self {
            V::Tuple(s) | V::List(s) | V::Dict(s) | V::Persid(s) => s.depth,
            _ => 0,
        }
    }
}

/// A memo entry. A list or dict is memoized while it is on the stack, before its items are
/// added (that is how Python's pickler writes one): the entry is that stack slot until the
/// container leaves the stack, then the container as it left. So a container reached again
/// through the memo has its items, as the same object has in Python, without the memo holding
/// a second reference that every write would copy.
#[derive(Debug, Clone)]
enum Memo {
    Value(V),
    OnStack(usize),
}

struct Vm<'a> {
    data: &'a [u8],
    at: usize,
    stack: Vec<V>,
    memo: HashMap<u32, Memo>,
    /// The memo keys still on the stack, with their slots, slots in increasing order.
    on_stack: Vec<(u32, usize)>,
    cells: usize,
}

fn err<T>(at: usize, what: impl Into<String>) -> Result<T, String> {
    Err(format!("pickle byte {at}: {}", what.into()))
}

impl<'a> Vm<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        match end.and_then(|e| self.data.get(self.at..e)) {
            Some(s) => {
                self.at += n;
                Ok(s)
            }
            None => err(self.at, format!("needs {n} more bytes than the pickle has")),
        }
    }

    fn u8(&mut self) -> Result<usize, String> {
        Ok(usize::from(self.take(1)?[0]))
    }

    fn le(&mut self, n: usize) -> Result<u64, String> {
        let b = self.take(n)?;
        Ok(b.iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    fn line(&mut self) -> Result<&'a str, String> {
        let rest = self.data.get(self.at..).unwrap_or_default();
        let Some(n) = rest.iter().position(|&b| b == b'\n') else {
            return err(self.at, "unterminated GLOBAL name");
        };
        let s = self.take(n + 1)?;
        std::str::from_utf8(&s[..n]).or_else(|_| err(self.at, "GLOBAL name is not UTF-8"))
    }

    fn spend(&mut self, cells: usize) -> Result<(), String> {
        self.cells = self.cells.saturating_add(cells);
        if self.cells > MAX_CELLS {
            return err(self.at, format!("builds more than {MAX_CELLS} values"));
        }
        Ok(())
    }

    fn push(&mut self, v: V) -> Result<(), String> {
        if self.stack.len() >= MAX_STACK {
            return err(self.at, format!("stack deeper than {MAX_STACK}"));
        }
        self.stack.push(v);
        Ok(())
    }

    /// Before the stack shrinks to `len` values: the memo entries of the slots leaving it
    /// take their values.
    fn settle(&mut self, len: usize) {
        while let Some(&(key, slot)) = self.on_stack.last() {
            if slot < len {
                break;
            }
            self.on_stack.pop();
            if let (Some(Memo::OnStack(at)), Some(v)) = (self.memo.get(&key), self.stack.get(slot))
                && *at == slot
            {
                let v = v.clone();
                self.memo.insert(key, Memo::Value(v));
            }
        }
    }

    fn pop(&mut self) -> Result<V, String> {
        self.settle(self.stack.len().saturating_sub(1));
        match self.stack.pop() {
            Some(V::Mark) | None => err(self.at, "stack underflow"),
            Some(v) => Ok(v),
        }
    }

    /// Everything above the topmost mark, the mark removed.
    fn pop_mark(&mut self) -> Result<Vec<V>, String> {
        let Some(m) = self.stack.iter().rposition(|v| matches!(v, V::Mark)) else {
            return err(self.at, "no MARK on the stack");
        };
        self.settle(m);
        let items = self.stack.split_off(m + 1);
        self.stack.pop();
        Ok(items)
    }

    fn seq(&mut self, items: Vec<V>) -> Result<Seq, String> {
        self.spend(items.len())?;
        let depth = items.iter().map(V::depth).max().unwrap_or(0) + 1;
        if depth > MAX_DEPTH {
            return err(
                self.at,
                format!("containers nested deeper than {MAX_DEPTH}"),
            );
        }
        Ok(Seq {
            items: Rc::new(items),
            depth,
        })
    }

    /// Adds `more` to the list or dict on top of the stack.
    fn extend_top(&mut self, more: Vec<V>, dict: bool) -> Result<(), String> {
        if dict && !more.len().is_multiple_of(2) {
            return err(self.at, "SETITEMS with an odd number of values");
        }
        let depth = more.iter().map(V::depth).max().unwrap_or(0) + 1;
        if depth > MAX_DEPTH {
            return err(
                self.at,
                format!("containers nested deeper than {MAX_DEPTH}"),
            );
        }
        let at = self.at;
        let Some(top) = self.stack.last_mut() else {
            return err(at, "stack underflow");
        };
        let seq = match (top, dict) {
            (V::List(s), false) | (V::Dict(s), true) => s,
            // Items added to something else (an object's state): dropped.
            _ => return Ok(()),
        };
        // A shared container is copied once before it is written (copy-on-write).
        let copied = if Rc::strong_count(&seq.items) > 1 {
            seq.items.len()
        } else {
            0
        };
        seq.depth = seq.depth.max(depth);
        Rc::make_mut(&mut seq.items).extend(more.iter().cloned());
        let n = more.len();
        self.spend(copied.saturating_add(n))
    }

    fn memo_put(&mut self, key: u32) -> Result<(), String> {
        let Some(top) = self.stack.last() else {
            return err(self.at, "memoizing an empty stack");
        };
        if self.memo.len() >= MAX_MEMO && !self.memo.contains_key(&key) {
            return err(self.at, format!("more than {MAX_MEMO} memo entries"));
        }
        let entry = match top {
            V::List(_) | V::Dict(_) => {
                let slot = self.stack.len() - 1;
                self.on_stack.push((key, slot));
                Memo::OnStack(slot)
            }
            v => Memo::Value(v.clone()),
        };
        self.memo.insert(key, entry);
        Ok(())
    }

    fn memo_get(&mut self, key: u64) -> Result<(), String> {
        let v = match u32::try_from(key).ok().and_then(|k| self.memo.get(&k)) {
            Some(Memo::Value(v)) => Some(v.clone()),
            Some(Memo::OnStack(slot)) => self.stack.get(*slot).cloned(),
            None => None,
        };
        match v {
            Some(v) => self.push(v),
            None => err(self.at, format!("memo key {key} was never stored")),
        }
    }

    fn string(&mut self, n: u64) -> Result<(), String> {
        let n = usize::try_from(n).unwrap_or(usize::MAX);
        let s = self.take(n)?;
        let s = std::str::from_utf8(s).or_else(|_| err(self.at, "string is not UTF-8"))?;
        self.push(V::Str(Rc::from(s)))
    }

    fn run(&mut self) -> Result<V, String> {
        loop {
            let op = self.take(1)?[0];
            match op {
                0x80 => {
                    self.u8()?;
                }
                0x95 => {
                    self.le(8)?;
                }
                b'.' => return self.pop(),
                b'(' => self.push(V::Mark)?,
                b'}' => {
                    let s = self.seq(Vec::new())?;
                    self.push(V::Dict(s))?
                }
                b']' => {
                    let s = self.seq(Vec::new())?;
                    self.push(V::List(s))?
                }
                b')' => {
                    let s = self.seq(Vec::new())?;
                    self.push(V::Tuple(s))?
                }
                b'N' => self.push(V::None)?,
                0x88 | 0x89 => self.push(V::Bool)?,
                b'K' => {
                    let n = self.u8()?;
                    self.push(V::Int(n as i64))?
                }
                b'M' => {
                    let n = self.le(2)?;
                    self.push(V::Int(n as i64))?
                }
                b'J' => {
                    let n = self.le(4)? as u32 as i32;
                    self.push(V::Int(i64::from(n)))?
                }
                0x8a => {
                    let n = self.u8()?;
                    let bytes = self.take(n)?;
                    let v = if n == 0 {
                        V::Int(0)
                    } else if n <= 8 {
                        let mut buf = [0u8; 8];
                        buf[..n].copy_from_slice(bytes);
                        if bytes[n - 1] & 0x80 != 0 {
                            buf[n..].fill(0xff);
                        }
                        V::Int(i64::from_le_bytes(buf))
                    } else {
                        V::Other
                    };
                    self.push(v)?
                }
                b'G' => {
                    self.take(8)?;
                    self.push(V::Other)?
                }
                b'X' => {
                    let n = self.le(4)?;
                    self.string(n)?
                }
                0x8c => {
                    let n = self.u8()? as u64;
                    self.string(n)?
                }
                0x8d => {
                    let n = self.le(8)?;
                    self.string(n)?
                }
                b'C' => {
                    let n = self.u8()?;
                    self.take(n)?;
                    self.push(V::Other)?
                }
                b'B' => {
                    let n = self.le(4)? as usize;
                    self.take(n)?;
                    self.push(V::Other)?
                }
                b'c' => {
                    let module = self.line()?;
                    let name = self.line()?;
                    self.push(V::Global(Rc::from(format!("{module}.{name}"))))?
                }
                0x93 => {
                    let name = self.pop()?;
                    let module = self.pop()?;
                    let (V::Str(m), V::Str(n)) = (module, name) else {
                        return err(self.at, "STACK_GLOBAL of non-strings");
                    };
                    self.push(V::Global(Rc::from(format!("{m}.{n}"))))?
                }
                b'q' => {
                    let k = self.u8()? as u32;
                    self.memo_put(k)?
                }
                b'r' => {
                    let k = self.le(4)? as u32;
                    self.memo_put(k)?
                }
                0x94 => {
                    let k = u32::try_from(self.memo.len()).unwrap_or(u32::MAX);
                    self.memo_put(k)?
                }
                b'h' => {
                    let k = self.u8()? as u64;
                    self.memo_get(k)?
                }
                b'j' => {
                    let k = self.le(4)?;
                    self.memo_get(k)?
                }
                b't' => {
                    let items = self.pop_mark()?;
                    let s = self.seq(items)?;
                    self.push(V::Tuple(s))?
                }
                0x85..=0x87 => {
                    let n = usize::from(op - 0x84);
                    if self.stack.len() < n {
                        return err(self.at, "stack underflow");
                    }
                    self.settle(self.stack.len() - n);
                    let items = self.stack.split_off(self.stack.len() - n);
                    if items.iter().any(|v| matches!(v, V::Mark)) {
                        return err(self.at, "a MARK inside a tuple");
                    }
                    let s = self.seq(items)?;
                    self.push(V::Tuple(s))?
                }
                b'l' => {
                    let items = self.pop_mark()?;
                    let s = self.seq(items)?;
                    self.push(V::List(s))?
                }
                b'd' => {
                    let items = self.pop_mark()?;
                    if !items.len().is_multiple_of(2) {
                        return err(self.at, "DICT with an odd number of values");
                    }
                    let s = self.seq(items)?;
                    self.push(V::Dict(s))?
                }
                b'a' => {
                    let v = self.pop()?;
                    self.extend_top(vec![v], false)?
                }
                b'e' => {
                    let items = self.pop_mark()?;
                    self.extend_top(items, false)?
                }
                b's' => {
                    let v = self.pop()?;
                    let k = self.pop()?;
                    self.extend_top(vec![k, v], true)?
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    self.extend_top(items, true)?
                }
                b'Q' => {
                    let pid = self.pop()?;
                    let s = self.seq(vec![pid])?;
                    self.push(V::Persid(s))?
                }
                b'R' | 0x81 => {
                    let args = self.pop()?;
                    let callable = self.pop()?;
                    let v = self.reduce(callable, args)?;
                    self.push(v)?
                }
                b'b' => {
                    self.pop()?;
                }
                b'0' => {
                    self.pop()?;
                }
                b'1' => {
                    self.pop_mark()?;
                }
                b'2' => {
                    let Some(v) = self.stack.last().cloned() else {
                        return err(self.at, "DUP of an empty stack");
                    };
                    self.push(v)?
                }
                other => {
                    return err(
                        self.at - 1,
                        format!("opcode 0x{other:02x} is not one a PyTorch state dict uses"),
                    );
                }
            }
        }
    }

    /// A call: the tensor rebuilders and `OrderedDict` are understood; anything else is an
    /// opaque object (no code runs either way).
    fn reduce(&mut self, callable: V, args: V) -> Result<V, String> {
        let V::Global(name) = callable else {
            return Ok(V::Other);
        };
        let args: &[V] = match &args {
            V::Tuple(s) => s.items.as_slice(),
            _ => &[],
        };
        match &*name {
            "collections.OrderedDict" => Ok(V::Dict(self.seq(Vec::new())?)),
            "torch._utils._rebuild_tensor_v2" | "torch._utils._rebuild_tensor" => self.tensor(args),
            "torch._utils._rebuild_parameter" | "torch._utils._rebuild_parameter_with_state" => {
                Ok(args.first().cloned().unwrap_or(V::Other))
            }
            _ => Ok(V::Other),
        }
    }

    fn tensor(&mut self, args: &[V]) -> Result<V, String> {
        let [V::Persid(pid), offset, V::Tuple(size), stride, ..] = args else {
            return err(
                self.at,
                "a tensor rebuilt from arguments other than (storage, offset, size, stride, …)",
            );
        };
        // ('storage', torch.FloatStorage, key, location, numel)
        let storage = match pid.items.first() {
            Some(V::Tuple(t)) => match t.items.as_slice() {
                [_, V::Global(class), V::Str(key), _, V::Int(numel), ..] => {
                    usize::try_from(*numel).ok().map(|n| (class, key, n))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((class, key, storage_numel)) = storage else {
            return err(
                self.at,
                "a tensor whose storage is not ('storage', type, key, location, numel)",
            );
        };
        let (dtype, element_size) = storage_dtype(class);
        if size.items.len() > MAX_DIMS {
            return err(
                self.at,
                format!("a tensor of {} dims, over {MAX_DIMS}", size.items.len()),
            );
        }
        let shape = super::sized_shape(size.items.iter().map(|d| match d {
            V::Int(n) => usize::try_from(*n).ok(),
            _ => None,
        }));
        let Some(shape) = shape else {
            return err(
                self.at,
                "a tensor size that is not a tuple of sizes whose product fits",
            );
        };
        let offset = match offset {
            V::Int(n) => usize::try_from(*n).ok(),
            _ => None,
        };
        let Some(offset) = offset else {
            return err(self.at, "a tensor whose storage offset is not a size");
        };
        let strides: Option<Vec<usize>> = match stride {
            V::Tuple(t) if t.items.len() <= MAX_DIMS => t
                .items
                .iter()
                .map(|s| match s {
                    V::Int(n) => usize::try_from(*n).ok(),
                    _ => None,
                })
                .collect(),
            _ => None,
        };
        let Some(strides) = strides else {
            return err(
                self.at,
                "a tensor whose strides are not a tuple of sizes (torch has no negative strides)",
            );
        };
        Ok(V::Tensor(Rc::new(Rebuilt {
            shape,
            dtype,
            key: Rc::clone(key),
            storage_numel,
            element_size,
            offset,
            strides,
        })))
    }
}

/// `torch.FloatStorage` in safetensors' spelling (`F32`), with its element size in bytes;
/// others by their class name, of unknown size.
fn storage_dtype(global: &str) -> (String, Option<usize>) {
    let class = global.rsplit('.').next().unwrap_or(global);
    let (name, size) = match class {
        "FloatStorage" => ("F32", 4),
        "DoubleStorage" => ("F64", 8),
        "HalfStorage" => ("F16", 2),
        "BFloat16Storage" => ("BF16", 2),
        "LongStorage" => ("I64", 8),
        "IntStorage" => ("I32", 4),
        "ShortStorage" => ("I16", 2),
        "CharStorage" => ("I8", 1),
        "ByteStorage" => ("U8", 1),
        "BoolStorage" => ("BOOL", 1),
        "ComplexFloatStorage" => ("C64", 8),
        "ComplexDoubleStorage" => ("C128", 16),
        "UInt16Storage" => ("U16", 2),
        "UInt32Storage" => ("U32", 4),
        "UInt64Storage" => ("U64", 8),
        "Float8_e4m3fnStorage" => ("F8_E4M3", 1),
        "Float8_e5m2Storage" => ("F8_E5M2", 1),
        "Float8_e4m3fnuzStorage"
        | "Float8_e5m2fnuzStorage"
        | "QInt8Storage"
        | "QUInt8Storage"
        | "QUInt4x2Storage"
        | "QUInt2x4Storage"
        | "UntypedStorage" => (class, 1),
        "QInt32Storage" => (class, 4),
        other => return (other.to_owned(), None),
    };
    (name.to_owned(), Some(size))
}

/// The tensors of a pickled state dict: in the top-level dict (or in dicts nested in it,
/// named with their keys joined by `.`), in the pickle's order; a key given twice keeps its
/// last value, at its first place, as a Python dict does.
pub(crate) fn tensors(data: &[u8]) -> Result<Vec<PickledTensor>, String> {
    let mut vm = Vm {
        data,
        at: 0,
        stack: Vec::new(),
        memo: HashMap::new(),
        on_stack: Vec::new(),
        cells: 0,
    };
    let top = vm.run()?;
    let V::Dict(dict) = top else {
        return Err("the pickle holds no dict of tensors (a state dict)".into());
    };
    flatten::names(&dict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_pickles_are_bounded_errors() {
        // Nested tuples past the depth cap.
        let mut deep = vec![0x80, 2, b'N'];
        deep.extend(std::iter::repeat_n(0x85, 100));
        deep.push(b'.');
        assert!(tensors(&deep).unwrap_err().contains("nested deeper"));
        // A list doubled by memo and APPENDS, over and over.
        let mut grow = vec![0x80, 2, b']', b'q', 0];
        for _ in 0..100 {
            grow.extend([b'(', b'h', 0, b'h', 0, b'l', b'q', 0, b'0']);
        }
        grow.extend([b'h', 0, b'.']);
        assert!(tensors(&grow).unwrap_err().contains("nested deeper"));
        // A memoized list extended again and again: each write copies the shared list, and
        // the copies count against the budget (quadratic work is refused, not done).
        let mut wide = vec![0x80, 2, b']', b'q', 0, b'0'];
        for _ in 0..2000 {
            wide.extend([b'h', 0, b'(']);
            wide.extend([b'N'; 100]);
            wide.extend([b'e', b'q', 0, b'0']);
        }
        wide.extend([b'h', 0, b'.']);
        assert!(tensors(&wide).unwrap_err().contains("builds more than"));
        assert!(tensors(b"\x80\x02K\x01.").unwrap_err().contains("no dict"));
        assert!(tensors(b"\x80\x02(").unwrap_err().contains("more bytes"));
        assert!(
            tensors(b"\x80\x02cos\nsystem\n")
                .unwrap_err()
                .contains("more bytes")
        );
        assert!(tensors(b"\x80\x02i").unwrap_err().contains("opcode 0x69"));
    }
}
