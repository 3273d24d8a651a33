//! The likely-typo rule over a derived struct's whole scope, nested structs included, in
//! `const` context: a struct knows its nested structs' variables only where its impl is
//! compiled, so `#[derive(Shaped)]` emits a `const` that evaluates
//! [`VarTable::typo_message`] and fails the build with its text. The rule and its words are
//! the ones the static analysis of one scope applies ([`Scope::likely_typos`],
//! [`rules::typo_message`]).
//!
//! [`Scope::likely_typos`]: super::analysis::Scope::likely_typos
//! [`rules::typo_message`]: super::rules::typo_message

use super::analysis::TypoKind;
use super::suggest::{one_slip, typo_shaped};
use super::vars::VarTable;

/// The room for a message; a longer one is cut (names are at most 48 bytes to be compared).
pub const MESSAGE_LEN: usize = 1024;

impl VarTable {
    /// The first likely typo of the scope: the name, the name it is close to (indices in
    /// the table) and why. The rule of one scope's analysis ([`Scope::likely_typos`]), but
    /// with names written in several structs: a name used once is a likely typo of a name
    /// used more only one edit away ([`one_slip`]; a count `head_fc_layers` beside
    /// `head_layers` is two variables). Names starting with `_` and declared names
    /// ([`declare`](Self::declare)) are left alone.
    ///
    /// [`Scope::likely_typos`]: super::analysis::Scope::likely_typos
    ///
    /// ```
    /// use shapes::__private::VarTable;
    /// // `Model` writes d_model twice; its nested struct, renamed, brings `d_modle` once.
    /// const LINEAR: VarTable = VarTable::new().with_uses("d_out", 2).with_uses("d_in", 1);
    /// const MODEL: VarTable = VarTable::new()
    ///     .with_uses("d_model", 2)
    ///     .merge_field(&LINEAR, &[("d_in", "d_modle"), ("d_out", "d_ff")], 0);
    /// let (typo, close, _) = MODEL.likely_typo().unwrap();
    /// assert_eq!((MODEL.name(typo), MODEL.name(close)), ("d_modle", "d_model"));
    /// ```
    pub const fn likely_typo(&self) -> Option<(usize, usize, TypoKind)> {
        let mut i = 0;
        while i < self.len {
            if self.candidate(i) {
                // ok: `i < self.len <= MAX_VARS`, and so is every `j` below.
                let name = self.names[i];
                let once = self.uses[i] == 1;
                // A name one edit away used more often.
                let mut j = 0;
                while once && j < self.len {
                    if j != i
                        && self.candidate(j)
                        && self.uses[j] >= 2
                        && one_slip(name, self.names[j])
                    {
                        return Some((i, j, TypoKind::Once));
                    }
                    j += 1;
                }
                // A slip of an earlier name.
                let mut j = 0;
                while j < i {
                    if self.candidate(j) && typo_shaped(name, self.names[j]) {
                        if once && self.uses[j] == 1 {
                            return Some((i, j, TypoKind::BothOnce));
                        }
                        if self.owners[i] & self.owners[j] == 0 {
                            return Some((i, j, TypoKind::Apart));
                        }
                    }
                    j += 1;
                }
            }
            i += 1;
        }
        None
    }

    /// Whether name `i` may be a typo or the name a typo is close to.
    const fn candidate(&self, i: usize) -> bool {
        let name = self.names[i].as_bytes(); // ok: callers pass `i < self.len`.
        !(name.is_empty() || name[0] == b'_' || self.declared & (1 << i) != 0)
    }

    /// The message of the scope's first likely typo ([`likely_typo`](Self::likely_typo)) in
    /// the struct `root`, and its length in bytes; a length of 0 when there is none. Read it
    /// with [`message_str`].
    ///
    /// ```
    /// use shapes::__private::{VarTable, message_str};
    /// const BLOCK: VarTable = VarTable::new().with_uses("d_modle", 2);
    /// const MODEL: VarTable = VarTable::new().with_uses("d_model", 2).merge_field(&BLOCK, &[], 0);
    /// let (buf, len) = MODEL.typo_message("Model");
    /// assert!(message_str(&buf, len).starts_with("in `Model` and the structs nested in its scope: `d_modle` and `d_model` differ"));
    /// ```
    pub const fn typo_message(&self, root: &str) -> ([u8; MESSAGE_LEN], usize) {
        let mut w = Writer {
            buf: [0; MESSAGE_LEN],
            len: 0,
        };
        let Some((i, j, kind)) = self.likely_typo() else {
            return (w.buf, 0);
        };
        let (name, other) = (self.names[i], self.names[j]); // ok: indices from `likely_typo`.
        w = w.push("in `").push(root);
        w = w.push("` and the structs nested in its scope: ");
        w = match kind {
            TypoKind::Once => w
                .push("`")
                .push(name)
                .push("` is used only once, so nothing checks it (did you mean `")
                .push(other)
                .push("`?); name it `_")
                .push(name)
                .push("` (or use `_`) if that is intended"),
            TypoKind::BothOnce => w
                .push("`")
                .push(name)
                .push("` and `")
                .push(other)
                .push("` are each used only once, so nothing checks either, and they differ by a slip of the fingers: one is likely a typo of the other (did you mean `")
                .push(other)
                .push("`?); name it `_")
                .push(name)
                .push("` (or use `_`) if that is intended"),
            TypoKind::Apart => w
                .push("`")
                .push(name)
                .push("` and `")
                .push(other)
                .push("` differ by a slip of the fingers but are never used together, so nothing checks one against the other: one is likely a typo of the other (did you mean `")
                .push(other)
                .push("`?); spell them alike (or map one to the other with `rename`), or give two different sizes names that do not look alike"),
        };
        (w.buf, w.len)
    }
}

/// The text of a message built in `const` context: the first `len` bytes of `buf` (a
/// fixed text when they are not UTF-8, which a message cut short may not be).
///
/// ```
/// assert_eq!(shapes::__private::message_str(b"abc  ", 3), "abc");
/// ```
pub const fn message_str(buf: &[u8], len: usize) -> &str {
    let len = if len > buf.len() { buf.len() } else { len };
    match core::str::from_utf8(buf.split_at(len).0) {
        Ok(s) => s,
        Err(_) => "shapes: a likely typo in this struct's scope (its message was cut short)",
    }
}

struct Writer {
    buf: [u8; MESSAGE_LEN],
    len: usize,
}

impl Writer {
    const fn push(mut self, s: &str) -> Self {
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() && self.len < MESSAGE_LEN {
            self.buf[self.len] = b[i]; // ok: `self.len < MESSAGE_LEN`, `i < b.len()`.
            self.len += 1;
            i += 1;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::rules::typo_message;

    fn message(t: &VarTable, root: &str) -> Option<String> {
        let (buf, len) = t.typo_message(root);
        (len > 0).then(|| message_str(&buf, len).to_owned())
    }

    #[test]
    fn the_const_words_are_the_rules_words() {
        const ONCE: VarTable = VarTable::new().with_uses("d_model", 3).with("d_modle");
        const BOTH: VarTable = VarTable::new().with("seq").with("sqe");
        const BLOCK: VarTable = VarTable::new().with_uses("d_modle", 2);
        const APART: VarTable = VarTable::new()
            .with_uses("d_model", 2)
            .merge_field(&BLOCK, &[], 0);
        for (t, name, other, kind) in [
            (ONCE, "d_modle", "d_model", TypoKind::Once),
            (BOTH, "sqe", "seq", TypoKind::BothOnce),
            (APART, "d_modle", "d_model", TypoKind::Apart),
        ] {
            assert_eq!(
                message(&t, "M").as_deref(),
                Some(
                    format!(
                        "in `M` and the structs nested in its scope: {}",
                        typo_message(name, other, kind)
                    )
                    .as_str()
                )
            );
        }
    }

    #[test]
    fn declared_names_underscores_and_shared_names_are_no_typo() {
        const GIVEN: VarTable = VarTable::new()
            .with_uses("d_model", 3)
            .with("d_modle")
            .declare("d_modle");
        const UNDERSCORE: VarTable = VarTable::new().with_uses("d_model", 3).with("_d_modle");
        const CHILD: VarTable = VarTable::new().with_uses("d_modle", 2).with("d_model");
        // One nested struct writes both: they meet there.
        const MET: VarTable = VarTable::new()
            .with_uses("d_model", 2)
            .merge_field(&CHILD, &[], 0);
        for t in [GIVEN, UNDERSCORE, MET] {
            assert_eq!(message(&t, "M"), None);
        }
    }
}
