//! The define-by-run graph tape, modelled on PyTorch's autograd engine.
//!
//! A [`Var`] is a tensor plus optional autograd metadata. Ops on `Var`s compute their
//! result with the plain tensor ops and, when grad mode is on and an input requires grad,
//! record a [`Node`] holding the backward rule (a closure that sits next to the forward
//! code) and edges to the nodes of the inputs. Leaves that require grad get an
//! `AccumulateGrad` node that writes into their `.grad`. `engine::backward` walks the
//! graph in reverse creation order.
//!
//! The tape is single-threaded by design (`Rc`/`RefCell`): graph metadata is only ever
//! touched while holding the GIL, and the Python layer refuses to use a graph-carrying
//! tensor from a thread other than the one that created it.

pub mod conv;
pub mod engine;
pub mod index;
pub mod join;
pub mod linalg;
pub mod matmul;
pub mod nn;
pub mod pointwise;
pub mod profile;
pub mod reduce;
pub mod sort;
pub mod unary;
pub mod views;

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::shape::Dims;
use crate::tensor::Tensor;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

thread_local! {
    static GRAD_ENABLED: Cell<bool> = const { Cell::new(true) };
    static NEXT_SEQ: Cell<u64> = const { Cell::new(0) };
    static ANOMALY: Cell<bool> = const { Cell::new(false) };
}

/// Whether ops record the graph (`torch.is_grad_enabled`). Thread-local like PyTorch.
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

pub fn set_grad_enabled(on: bool) {
    GRAD_ENABLED.with(|g| g.set(on));
}

pub fn is_anomaly_enabled() -> bool {
    ANOMALY.with(|a| a.get())
}

pub fn set_anomaly_enabled(on: bool) {
    ANOMALY.with(|a| a.set(on));
}

/// Restores the previous grad mode when dropped.
pub struct GradMode(bool);

impl GradMode {
    pub fn set(on: bool) -> GradMode {
        let prev = is_grad_enabled();
        set_grad_enabled(on);
        GradMode(prev)
    }
}

impl Drop for GradMode {
    fn drop(&mut self) {
        set_grad_enabled(self.0);
    }
}

fn next_seq() -> u64 {
    NEXT_SEQ.with(|s| {
        let v = s.get();
        s.set(v + 1);
        v
    })
}

/// A hook on the gradient flowing into a tensor; may return a replacement gradient.
pub type GradHook = Rc<dyn Fn(&Var) -> Result<Option<Var>>>;
/// Runs after a leaf's `.grad` was updated.
pub type PostAccHook = Rc<dyn Fn(&Var) -> Result<()>>;

/// Autograd state of one tensor.
#[derive(Default)]
pub struct Meta {
    /// Set for leaves by the user; for results, whether a graph was recorded.
    pub requires_grad: Cell<bool>,
    /// The node that produced this tensor (None for leaves).
    pub grad_fn: RefCell<Option<Rc<Node>>>,
    /// Which output of `grad_fn` this tensor is.
    pub output_nr: Cell<usize>,
    /// Accumulated gradient (`.grad`).
    pub grad: RefCell<Option<Var>>,
    /// The leaf's AccumulateGrad node, created on first use and shared by all uses.
    pub accumulator: RefCell<Weak<Node>>,
    pub retains_grad: Cell<bool>,
    pub hooks: RefCell<Vec<(u64, GradHook)>>,
    pub post_acc_hooks: RefCell<Vec<(u64, PostAccHook)>>,
    /// The embedding host's objects that this tensor's hooks hold (the Python callables),
    /// by hook id. The closures above are opaque; keeping the objects here too lets the
    /// host's garbage collector see them, so a hook that refers back to its own tensor
    /// forms a cycle the collector can find and break.
    pub host_refs: RefCell<Vec<(u64, Box<dyn std::any::Any>)>>,
    /// When this tensor is a view of another tensor that requires grad: the base and how
    /// to re-create the view from it (used to rebase history after in-place ops).
    pub view_of: RefCell<Option<ViewInfo>>,
}

/// How a view was derived from its base, so in-place writes to the view can be
/// differentiated with respect to the base (PyTorch's CopySlices).
#[derive(Clone)]
pub struct ViewInfo {
    pub base: Var,
    pub replay: views::Replay,
    /// The storage version the view's history was made at. When the base (or another
    /// view of it) is later written in place, the version moves on and the view's
    /// history is re-derived from the base's current one (PyTorch regenerates a view's
    /// grad_fn the same way), so gradients through the view see the write.
    pub version: Cell<u64>,
    /// For the outputs of `split`/`chunk`/`unbind`: the op's name and which output this
    /// is. PyTorch refuses in-place writes to such views while recording a graph.
    pub multi_output: Option<(&'static str, usize)>,
}

/// A tensor with (optional) autograd metadata. Cloning shares both.
#[derive(Clone)]
pub struct Var {
    pub t: Tensor,
    pub meta: Option<Rc<Meta>>,
}

impl Var {
    /// A tensor with no autograd state (the fast path for everything that does not
    /// require grad).
    pub fn plain(t: Tensor) -> Var {
        Var { t, meta: None }
    }

    /// A leaf that requires grad.
    pub fn leaf(t: Tensor, requires_grad: bool) -> Result<Var> {
        if !requires_grad {
            return Ok(Var::plain(t));
        }
        check_float("requires_grad_", t.dtype())?;
        let meta = Meta::default();
        meta.requires_grad.set(true);
        Ok(Var {
            t,
            meta: Some(Rc::new(meta)),
        })
    }

    pub fn requires_grad(&self) -> bool {
        self.meta.as_ref().is_some_and(|m| m.requires_grad.get())
    }

    pub fn grad_fn(&self) -> Option<Rc<Node>> {
        self.refresh_view();
        self.meta.as_ref().and_then(|m| m.grad_fn.borrow().clone())
    }

    /// Re-derives the history of a view whose base was written in place since the view
    /// was made (see [`ViewInfo::version`]). Cheap when nothing changed: one comparison.
    fn refresh_view(&self) {
        let Some(m) = &self.meta else { return };
        let now = self.t.storage.version();
        // the common case (not a view, or nothing written since) without cloning the info
        let stale = match m.view_of.borrow().as_ref() {
            Some(vi) => vi.version.get() != now && vi.base.requires_grad(),
            None => false,
        };
        if !stale {
            return;
        }
        let Some(vi) = m.view_of.borrow().clone() else {
            return;
        };
        // the same view of the base as it is now; on failure the old history stays
        if let Ok(fresh) = views::view_op("AsStridedBackward0", &vi.base, vi.replay.clone()) {
            *m.grad_fn.borrow_mut() = fresh.meta.as_ref().and_then(|f| f.grad_fn.borrow().clone());
            m.output_nr.set(0);
        }
        if let Some(cur) = m.view_of.borrow().as_ref() {
            cur.version.set(now);
        }
    }

    pub fn is_leaf(&self) -> bool {
        self.grad_fn().is_none()
    }

    /// The same data with no graph (`detach()`); shares storage.
    pub fn detach(&self) -> Var {
        Var::plain(self.t.clone())
    }

    pub fn meta_or_init(&mut self) -> Rc<Meta> {
        self.meta
            .get_or_insert_with(|| Rc::new(Meta::default()))
            .clone()
    }

    /// The edge gradients for this tensor flow into, creating a leaf's accumulator on
    /// first use.
    pub fn gradient_edge(&self) -> Option<Edge> {
        self.refresh_view();
        let m = self.meta.as_ref()?;
        if let Some(f) = m.grad_fn.borrow().as_ref() {
            return Some(Edge {
                node: f.clone(),
                input_nr: m.output_nr.get(),
            });
        }
        if !m.requires_grad.get() {
            return None;
        }
        let existing = m.accumulator.borrow().upgrade();
        let node = existing.unwrap_or_else(|| {
            let n = Rc::new(Node::accumulate(m.clone(), &self.t));
            *m.accumulator.borrow_mut() = Rc::downgrade(&n);
            n
        });
        Some(Edge { node, input_nr: 0 })
    }
}

pub fn check_float(op: &str, d: DType) -> Result<()> {
    if !d.is_float() {
        return Err(Error::runtime(
            op,
            "only Tensors of floating point and complex dtype can require gradients",
        ));
    }
    Ok(())
}

/// Whether an op on these inputs must record a node.
pub fn needs_grad(inputs: &[&Var]) -> bool {
    is_grad_enabled() && inputs.iter().any(|v| v.requires_grad())
}

/// An edge to the node that receives the gradient of one input.
#[derive(Clone)]
pub struct Edge {
    pub node: Rc<Node>,
    pub input_nr: usize,
}

/// Shape and dtype of a tensor the engine must produce a gradient for.
#[derive(Clone, Debug)]
pub struct TensorMeta {
    pub shape: Dims,
    pub dtype: DType,
}

impl TensorMeta {
    pub fn of(t: &Tensor) -> TensorMeta {
        TensorMeta {
            shape: t.shape().into(),
            dtype: t.dtype(),
        }
    }
}

/// The backward rule of one recorded op: gradients of its outputs in, gradients of its
/// inputs out (None where an input needs none).
pub type BackwardFn = Box<dyn FnMut(&[Var], &[bool]) -> Result<Vec<Option<Var>>>>;

pub enum NodeKind {
    /// Adds incoming gradients into a leaf's `.grad`.
    Accumulate(Rc<Meta>),
    Op {
        /// Taken (and so released, with the tensors it saved) after the node runs unless
        /// the graph is retained. `saves` tells whether running it again is an error.
        backward: RefCell<Option<BackwardFn>>,
        saves: bool,
    },
}

/// A recorded operation in the graph.
pub struct Node {
    pub seq: u64,
    pub name: String,
    /// One entry per differentiable input; None where the input needs no gradient.
    pub next: Vec<Option<Edge>>,
    /// Shapes/dtypes of the inputs: incoming gradients are reduced (broadcast) and cast
    /// to these in one place, the engine.
    pub inputs: Vec<TensorMeta>,
    /// Shapes/dtypes of the outputs (to materialise zero gradients for unused outputs).
    pub outputs: Vec<TensorMeta>,
    pub kind: NodeKind,
    /// Hooks run on the gradients of this node's outputs before it runs, keyed by
    /// output number (tensor hooks on non-leaf tensors, retain_grad).
    pub pre_hooks: RefCell<Vec<(usize, u64, GradHook)>>,
    /// Where the op was created (anomaly mode), for error messages.
    pub trace: RefCell<Option<String>>,
    pub released: Cell<bool>,
    /// The tensors the backward rule saved, for introspection only (`grad_fn._saved_self`,
    /// graph drawings). Weak: the rule's closure owns them, so they still go away when the
    /// node is released after backward.
    pub saved: Vec<(SavedRole, Weak<SavedData>)>,
    /// The leaf an `AccumulateGrad` node writes to (`grad_fn.variable`); None for ops.
    pub variable: Option<Tensor>,
    /// Whatever the bindings attach to the node (the `grad_fn.metadata` dict), created on
    /// first access and kept as long as the node lives.
    pub metadata: RefCell<Option<Box<dyn std::any::Any>>>,
}

impl Node {
    fn accumulate(meta: Rc<Meta>, t: &Tensor) -> Node {
        Node {
            seq: u64::MAX,
            name: "AccumulateGrad".into(),
            next: Vec::new(),
            inputs: Vec::new(),
            outputs: vec![TensorMeta::of(t)],
            kind: NodeKind::Accumulate(meta),
            pre_hooks: RefCell::new(Vec::new()),
            trace: RefCell::new(None),
            released: Cell::new(false),
            saved: Vec::new(),
            variable: Some(t.clone()),
            metadata: RefCell::new(None),
        }
    }

    pub fn is_accumulate(&self) -> bool {
        matches!(self.kind, NodeKind::Accumulate(_))
    }

    /// The tensors the backward rule saved, by role, as backward would unpack them (an
    /// error if modified in place since); None where the value is already freed (the
    /// node ran without `retain_graph`).
    pub fn saved_tensors(&self) -> Vec<(SavedRole, Option<Result<Var>>)> {
        self.saved
            .iter()
            .map(|(role, w)| (*role, w.upgrade().map(|d| d.get(&self.name))))
            .collect()
    }

    /// The leaf an `AccumulateGrad` node writes to, with its autograd state.
    pub fn leaf_variable(&self) -> Option<Var> {
        match &self.kind {
            NodeKind::Accumulate(meta) => self.variable.as_ref().map(|t| Var {
                t: t.clone(),
                meta: Some(meta.clone()),
            }),
            NodeKind::Op { .. } => None,
        }
    }
}

impl Drop for Node {
    /// Frees long chains without recursion: a 150 000-op graph would otherwise overflow
    /// the stack. The backward closure (and the tensors it saved) is dropped first, while
    /// the edges still keep the input nodes alive, so nothing deep is freed from there.
    fn drop(&mut self) {
        if let NodeKind::Op { backward, .. } = &self.kind {
            drop(backward.borrow_mut().take());
        }
        let mut stack: Vec<Rc<Node>> = self.next.drain(..).flatten().map(|e| e.node).collect();
        while let Some(n) = stack.pop() {
            if let Ok(mut node) = Rc::try_unwrap(n) {
                if let NodeKind::Op { backward, .. } = &node.kind {
                    drop(backward.borrow_mut().take());
                }
                stack.extend(node.next.drain(..).flatten().map(|e| e.node));
            }
        }
    }
}

/// A tensor saved for backward, remembering its version so in-place changes made after
/// saving are detected (PyTorch's "modified by an inplace operation" error).
///
/// Shared (`Rc`) so that the node recorded next can list it weakly for introspection
/// without extending its lifetime (see `take_just_saved`).
pub struct Saved(Rc<SavedData>);

/// The contents of a [`Saved`].
pub struct SavedData {
    var: Var,
    version: u64,
    /// The node that produced the saved tensor (None for leaves), for error messages.
    producer: Option<(String, usize)>,
    /// For a saved *output*: a weak link to the node that produced it, filled in once the
    /// node exists, so double backward can differentiate through the saved value without
    /// a strong reference cycle.
    out_node: Option<OutputSlot>,
}

/// Filled with the output's node after `record` (see [`Saved::output_of`]).
#[derive(Clone, Default)]
pub struct OutputSlot(Rc<RefCell<Weak<Node>>>);

impl OutputSlot {
    pub fn bind(&self, v: &Var) {
        if let Some(n) = v.grad_fn() {
            *self.0.borrow_mut() = Rc::downgrade(&n);
        }
    }
}

impl Saved {
    /// Saves an input (keeps its graph, so double backward can differentiate through it).
    pub fn input(v: &Var) -> Saved {
        let producer = v.grad_fn().map(|n| {
            (
                n.name.clone(),
                v.meta.as_ref().map_or(0, |m| m.output_nr.get()),
            )
        });
        Saved::note(SavedData {
            var: v.clone(),
            version: v.t.storage.version(),
            producer,
            out_node: None,
        })
    }

    /// Saves an op's own output. Only the data is kept: keeping the output's node would be
    /// a reference cycle (node -> saved output -> node).
    pub fn output(t: &Tensor) -> Saved {
        Saved::note(SavedData {
            var: Var::plain(t.clone()),
            version: t.storage.version(),
            producer: None,
            out_node: None,
        })
    }

    /// Saves the output of the node being recorded (named `node`); call `bind` on the
    /// returned slot with the recorded result.
    pub fn output_of(t: &Tensor, node: &str) -> (Saved, OutputSlot) {
        Saved::output_nr_of(t, node, 0)
    }

    /// [`Saved::output_of`] for output `nr` of a node with several outputs (bind the slot
    /// with that output).
    pub fn output_nr_of(t: &Tensor, node: &str, nr: usize) -> (Saved, OutputSlot) {
        let slot = OutputSlot::default();
        let s = Saved::note(SavedData {
            var: Var::plain(t.clone()),
            version: t.storage.version(),
            producer: Some((node.to_string(), nr)),
            out_node: Some(slot.clone()),
        });
        (s, slot)
    }

    /// Wraps `d` and lists it for the node recorded next.
    fn note(d: SavedData) -> Saved {
        let rc = Rc::new(d);
        JUST_SAVED.with(|js| {
            let mut js = js.borrow_mut();
            // Values saved on a path that then recorded nothing (say, a rule that keeps a
            // mask before deciding no graph is needed) are dead by now: prune them so a
            // long no-grad loop cannot grow this list.
            if js.len() >= 16 {
                js.retain(|w| w.strong_count() > 0);
            }
            js.push(Rc::downgrade(&rc));
        });
        Saved(rc)
    }

    pub fn get(&self, consumer: &str) -> Result<Var> {
        self.0.get(consumer)
    }
}

impl SavedData {
    /// The saved tensor, checked against in-place modification since it was saved.
    pub fn get(&self, _consumer: &str) -> Result<Var> {
        let now = self.var.t.storage.version();
        if now != self.version {
            let kind = self.var.t.dtype().tensor_type_name();
            let what = format!(
                "[ferric.{kind} {}]",
                crate::error::fmt_shape(self.var.t.shape())
            );
            let which = match &self.producer {
                Some((n, nr)) => format!("{what}, which is output {nr} of {n},"),
                None => what,
            };
            return Err(Error::runtime(
                "",
                format!(
                    "one of the variables needed for gradient computation has been modified by an inplace \
                     operation: {which} is at version {now}; expected version {} instead. Hint: enable anomaly \
                     detection to find the operation that failed to compute its gradient, with \
                     ferric.autograd.set_detect_anomaly(True).",
                    self.version
                ),
            ));
        }
        if let Some(slot) = &self.out_node {
            if let Some(node) = slot.0.borrow().upgrade() {
                let meta = Meta::default();
                meta.requires_grad.set(true);
                meta.output_nr
                    .set(self.producer.as_ref().map_or(0, |p| p.1));
                *meta.grad_fn.borrow_mut() = Some(node);
                return Ok(Var {
                    t: self.var.t.clone(),
                    meta: Some(Rc::new(meta)),
                });
            }
        }
        Ok(self.var.clone())
    }
}

thread_local! {
    /// Values saved since the last node was recorded: a rule saves its tensors right
    /// before it records its node, which then takes this list.
    static JUST_SAVED: RefCell<Vec<Weak<SavedData>>> = const { RefCell::new(Vec::new()) };
}

/// Drops the list of values saved since the last node: for values saved *after* their
/// node was recorded (a custom Function's `save_for_backward`), which must not be listed
/// under the next, unrelated node.
pub fn forget_just_saved() {
    JUST_SAVED.with(|js| js.borrow_mut().clear());
}

/// What a node's saved tensor was to the op, for PyTorch-style names
/// (`grad_fn._saved_self`, `_saved_other`, `_saved_result`). Rules do not name what they
/// save, so the role is found by identity when the node is recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SavedRole {
    Input(usize),
    Output(usize),
    /// An integer or boolean tensor the rule kept (indices, masks).
    Index,
    /// Anything else.
    Other,
}

fn same_tensor(a: &Tensor, b: &Tensor) -> bool {
    a.shares_storage(b) && a.layout == b.layout
}

/// The live values saved since the previous node, with their roles for this node.
fn take_just_saved(inputs: &[&Var], outs: &[Tensor]) -> Vec<(SavedRole, Weak<SavedData>)> {
    let pending = JUST_SAVED.with(|js| {
        let mut js = js.borrow_mut();
        if js.is_empty() {
            Vec::new()
        } else {
            std::mem::take(&mut *js)
        }
    });
    if pending.is_empty() {
        return Vec::new();
    }
    // `x * x` saves the same tensor twice: give each input position to one saved value
    let mut claimed = vec![false; inputs.len()];
    pending
        .into_iter()
        .filter_map(|w| {
            let d = w.upgrade()?;
            let v = &d.var;
            let input = inputs.iter().enumerate().position(|(i, x)| {
                let same = match (&v.meta, &x.meta) {
                    (Some(a), Some(b)) => Rc::ptr_eq(a, b) && same_tensor(&v.t, &x.t),
                    (None, None) => same_tensor(&v.t, &x.t),
                    _ => false,
                };
                same && claimed.get(i) == Some(&false)
            });
            let role = if let Some(i) = input {
                if let Some(c) = claimed.get_mut(i) {
                    *c = true;
                }
                SavedRole::Input(i)
            } else if let Some(j) = outs.iter().position(|o| same_tensor(&v.t, o)) {
                SavedRole::Output(j)
            } else if !v.t.dtype().is_float() {
                SavedRole::Index
            } else {
                SavedRole::Other
            };
            drop(d);
            Some((role, w))
        })
        .collect()
}

/// Python-level trace provider for anomaly mode (installed by the bindings).
type TraceFn = fn() -> Option<String>;
thread_local! {
    static TRACE_FN: Cell<Option<TraceFn>> = const { Cell::new(None) };
}

pub fn set_trace_provider(f: TraceFn) {
    TRACE_FN.with(|t| t.set(Some(f)));
}

/// Records `out` as produced by an op named `name` from `inputs`, with `backward`
/// computing the input gradients. Callers check [`needs_grad`] first so that nothing is
/// saved when no graph is needed.
pub fn record(name: &str, out: Tensor, inputs: &[&Var], saves: bool, backward: BackwardFn) -> Var {
    let outs = record_multi(name, vec![out], inputs, saves, backward);
    outs.into_iter().next().unwrap_or_else(|| unreachable!())
}

/// Like [`record`] for ops with several outputs (each output gets its own output_nr).
pub fn record_multi(
    name: &str,
    outs: Vec<Tensor>,
    inputs: &[&Var],
    saves: bool,
    backward: BackwardFn,
) -> Vec<Var> {
    let node = Rc::new(Node {
        seq: next_seq(),
        name: name.to_string(),
        next: inputs.iter().map(|v| v.gradient_edge()).collect(),
        inputs: inputs.iter().map(|v| TensorMeta::of(&v.t)).collect(),
        outputs: outs.iter().map(TensorMeta::of).collect(),
        kind: NodeKind::Op {
            backward: RefCell::new(Some(backward)),
            saves,
        },
        pre_hooks: RefCell::new(Vec::new()),
        trace: RefCell::new(if is_anomaly_enabled() {
            TRACE_FN.with(|t| t.get()).and_then(|f| f())
        } else {
            None
        }),
        released: Cell::new(false),
        saved: take_just_saved(inputs, &outs),
        variable: None,
        metadata: RefCell::new(None),
    });
    outs.into_iter()
        .enumerate()
        .map(|(i, t)| {
            let meta = Meta::default();
            meta.requires_grad.set(true);
            *meta.grad_fn.borrow_mut() = Some(node.clone());
            meta.output_nr.set(i);
            Var {
                t,
                meta: Some(Rc::new(meta)),
            }
        })
        .collect()
}

/// The "save inputs/output, record, bind" sequence of an op whose backward rule keeps
/// values, in one place. Save with [`input`](Self::input) and [`output`](Self::output)
/// (inputs first: the node lists its saved values in that order), then call
/// [`record`](Self::record), which records the node like [`record`] and binds a saved
/// output to it, so double backward differentiates through the saved output (without
/// the bind that path is silently cut). The node frees its rule after running unless
/// the graph is retained, as soon as anything was saved or kept.
///
/// ```ignore
/// let mut s = SaveForBackward::new(name);
/// let (sx, so) = (s.input(x), s.output(&out));
/// Ok(s.record(out, &[x], Box::new(move |g, _| {
///     let (x, out) = (sx.get(name)?, so.get(name)?);
///     Ok(vec![Some(rule(&g[0], &x, &out)?)])
/// })))
/// ```
pub struct SaveForBackward<'n> {
    name: &'n str,
    output: Option<OutputSlot>,
    saves: bool,
}

impl<'n> SaveForBackward<'n> {
    /// For the node that will be recorded as `name`.
    pub fn new(name: &'n str) -> SaveForBackward<'n> {
        SaveForBackward {
            name,
            output: None,
            saves: false,
        }
    }

    /// Saves an input ([`Saved::input`]).
    pub fn input(&mut self, v: &Var) -> Saved {
        self.saves = true;
        Saved::input(v)
    }

    /// Saves the op's own output ([`Saved::output_of`]); `record` binds it to the node
    /// (with `record_multi`, it must be output 0).
    pub fn output(&mut self, out: &Tensor) -> Saved {
        self.saves = true;
        let (saved, slot) = Saved::output_of(out, self.name);
        self.output = Some(slot);
        saved
    }

    /// Notes that the rule keeps other values too (masks, scalar-or-tensor operands), so
    /// running it twice without `retain_graph` must fail like PyTorch's.
    pub fn keeps_other(&mut self) {
        self.saves = true;
    }

    /// [`record`]s `out` and binds the saved output (if any) to the new node.
    pub fn record(self, out: Tensor, inputs: &[&Var], backward: BackwardFn) -> Var {
        let v = record(self.name, out, inputs, self.saves, backward);
        if let Some(slot) = &self.output {
            slot.bind(&v);
        }
        v
    }

    /// [`record_multi`]; a saved output is bound as output 0.
    pub fn record_multi(
        self,
        outs: Vec<Tensor>,
        inputs: &[&Var],
        backward: BackwardFn,
    ) -> Vec<Var> {
        let vs = record_multi(self.name, outs, inputs, self.saves, backward);
        if let (Some(slot), Some(v0)) = (&self.output, vs.first()) {
            slot.bind(v0);
        }
        vs
    }
}

static HOOK_IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

pub fn next_hook_id() -> u64 {
    HOOK_IDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests;
