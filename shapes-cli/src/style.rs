//! Colour on a terminal only: never in a pipe or a file, never with `NO_COLOR` set.

use std::io::IsTerminal;

/// Whether to colour, decided once.
#[derive(Clone, Copy)]
pub struct Style {
    on: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            on: !no_color && std::io::stdout().is_terminal(),
        }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    pub fn ok(self, text: &str) -> String {
        self.paint("1;32", text)
    }
    pub fn bad(self, text: &str) -> String {
        self.paint("1;31", text)
    }
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }
}
