//! What `verify_source` reads a checkpoint as when a framework lays some layers out
//! otherwise than PyTorch (burn's `Linear` weight is `(d_in, d_out)`, its `LayerNorm` names
//! its parameters `gamma`/`beta`): the tensors the layers note ([`SourceCx::note_torch`]),
//! and the checkpoint read with those converted ([`TorchView`]). When the converted
//! checkpoint matches, the layout is the one cause of the mismatches.

use super::SourceCx;
use crate::source::ShapeSource;

/// How PyTorch saves a framework layer's tensor when the framework lays it out otherwise
/// (burn): what `verify_source` reads the checkpoint as, to tell a checkpoint in PyTorch's
/// layout from a wrong one.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TorchLayout {
    /// As the framework does.
    Same,
    /// Transposed: burn's `Linear` weight is `(d_in, d_out)`, PyTorch's `(d_out, d_in)`.
    Transposed,
    /// Under another last name part: burn's `LayerNorm.gamma` is PyTorch's `weight`.
    Named(&'static str),
}

impl<'s> SourceCx<'s> {
    /// The source read the way the tensors noted with [`note_torch`](Self::note_torch) are
    /// laid out by PyTorch turned into the framework's layout; `None` when none was noted.
    pub(crate) fn torch_view(&self) -> Option<TorchView<'s>> {
        if self.torch.is_empty() {
            return None;
        }
        let mut shapes = std::collections::BTreeMap::new();
        let mut renamed = Vec::new();
        let mut transposed = Vec::new();
        for (name, layout) in &self.torch {
            match *layout {
                TorchLayout::Transposed => {
                    if let Some(d) = self.src.shape_of(name)
                        && d.len() == 2
                    {
                        shapes.insert(name.clone(), d.iter().rev().copied().collect());
                        transposed.push(name.clone());
                    }
                }
                TorchLayout::Named(torch) => {
                    let parent = name.rfind('.').map_or("", |i| &name[..=i]);
                    let from = format!("{parent}{torch}");
                    if self.src.shape_of(name).is_none()
                        && let Some(d) = self.src.shape_of(&from)
                    {
                        shapes.insert(name.clone(), d.to_vec());
                        renamed.push((from, name.clone()));
                    }
                }
                TorchLayout::Same => {}
            }
        }
        (!shapes.is_empty()).then_some(TorchView {
            src: self.src,
            shapes,
            renamed,
            transposed,
        })
    }
}

/// A source read with some tensors in a framework's layout rather than PyTorch's (see
/// [`SourceCx::torch_view`]): what a checkpoint converted on loading would hold.
pub(crate) struct TorchView<'s> {
    src: &'s dyn ShapeSource,
    /// The shapes of the tensors the view changes, under the framework's names.
    shapes: std::collections::BTreeMap<String, Vec<usize>>,
    /// `(PyTorch's name, the framework's)` of each renamed tensor.
    pub renamed: Vec<(String, String)>,
    /// The tensors read transposed.
    pub transposed: Vec<String>,
}

impl ShapeSource for TorchView<'_> {
    fn shape_of(&self, name: &str) -> Option<&[usize]> {
        match self.shapes.get(name) {
            Some(d) => Some(d),
            None if self.renamed.iter().any(|(from, _)| from == name) => None,
            None => self.src.shape_of(name),
        }
    }

    fn tensor_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .src
            .tensor_names()
            .into_iter()
            .filter(|n| !self.renamed.iter().any(|(from, _)| from == n))
            .collect();
        names.extend(self.renamed.iter().map(|(_, to)| to.as_str()));
        names
    }

    fn config(&self, key: &str) -> Option<crate::source::ConfigEntry> {
        self.src.config(key)
    }
}
