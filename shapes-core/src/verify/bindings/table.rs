//! [`Bindings`](super::Bindings) as a table: one line per variable, `name  value  bound by …`,
//! then the tied tensors.

use core::fmt;

use super::{Binding, Bindings};
use crate::text::{Padded, column_width};

/// A table: one line per variable, `name  value  bound by …`.
impl fmt::Display for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: Vec<Binding> = self.iter().collect();
        let values: Vec<String> = rows.iter().map(|b| b.value.to_string()).collect();
        // Padded by hand: a name can be longer than the formatter's width argument allows.
        let name_w = column_width(rows.iter().map(|b| &*b.name));
        let value_w = column_width(values.iter().map(String::as_str));
        for (b, v) in rows.iter().zip(&values) {
            writeln!(
                f,
                "{}  {}  bound by {}",
                Padded::left(&b.name, name_w),
                Padded::right(v, value_w),
                b.origin
            )?;
        }
        for t in self.tied() {
            writeln!(f, "{t}")?;
        }
        Ok(())
    }
}
