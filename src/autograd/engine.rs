//! `backward()` and `autograd.grad()`: walks the recorded graph from the outputs.
//!
//! Like PyTorch's engine: count, for every reachable node, how many edges point at it;
//! then repeatedly run the ready node with the highest sequence number (the most recently
//! created), summing the gradients arriving for each of its outputs in an input buffer.
//! Broadcast gradients are reduced to the input's shape here, once, for every op.

use super::{pointwise as binary, views, BackwardFn, GradMode, Meta, Node, NodeKind, Var};
use crate::dtype::Scalar;
use crate::error::{fmt_shape, Error, Result};
use crate::memory_order::Order;
use crate::tensor::Tensor;
use std::cell::RefCell;
use std::collections::BinaryHeap;
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

/// The engine's maps are keyed by node addresses (and small slot numbers), looked up a few
/// times per node of every backward pass: a multiply-rotate hash is enough for such keys
/// and much cheaper than the default SipHash, which showed up in profiles of unrolled
/// loops. Nothing here is keyed by user-controlled data.
#[derive(Default)]
struct AddrHasher(u64);

impl Hasher for AddrHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
    fn finish(&self) -> u64 {
        // addresses are aligned, so the low bits of the product carry little: move the
        // well-mixed high bits down, where the table takes its bucket index from
        self.0.rotate_left(26)
    }
}

type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<AddrHasher>>;

fn key(n: &Rc<Node>) -> usize {
    Rc::as_ptr(n) as usize
}

/// What to do with the gradients that reach the requested inputs.
pub enum Mode<'a> {
    /// `backward()`: accumulate into `.grad` of leaves (only of `inputs` when given).
    Accumulate(Option<&'a [Var]>),
    /// `autograd.grad()`: return the gradients of `inputs`, touching no `.grad`.
    Capture(&'a [Var]),
}

struct Ready(u64, usize);
impl PartialEq for Ready {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0 && self.1 == o.1
    }
}
impl Eq for Ready {}
impl PartialOrd for Ready {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ready {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.0, self.1).cmp(&(o.0, o.1))
    }
}

/// Sums a gradient into an input buffer. Without a graph being built, the sum is taken
/// in place into whichever of the two tensors the buffer owns outright (its storage is
/// referenced nowhere else, and it is dense), so a weight used at every step of an
/// unrolled loop does not allocate a fresh gradient for every use.
fn accumulate_into(slot: &mut Option<Var>, g: Var) -> Result<()> {
    *slot = Some(match slot.take() {
        None => g,
        Some(prev) => {
            if !prev.requires_grad() && !g.requires_grad() && prev.t.shape() == g.t.shape() {
                // (an in-place add that fails, e.g. on read-only NumPy memory, falls back)
                if owned_dense(&prev.t) && add_into(&prev.t, &g.t).is_ok() {
                    prev
                } else if owned_dense(&g.t) && add_into(&g.t, &prev.t).is_ok() {
                    g
                } else {
                    binary::add(&prev, &g)?
                }
            } else {
                binary::add(&prev, &g)?
            }
        }
    });
    Ok(())
}

/// True if nothing but this tensor references its storage and its elements are distinct
/// and cover the storage densely (so an in-place write is invisible to anyone else).
fn owned_dense(t: &Tensor) -> bool {
    std::sync::Arc::strong_count(&t.storage) == 1 && t.layout.is_dense()
}

/// `dst += src` for gradients of the same shape (the in-place add runs the vector kernel
/// over dense buffers, including two laid out alike such as a weight's `w.t()`-shaped
/// per-step gradients).
fn add_into(dst: &Tensor, src: &Tensor) -> Result<()> {
    use crate::ops::binary::{binary_, BinaryOp, Operand};
    binary_(BinaryOp::Add, dst, Operand::T(src))
}

/// Makes `g` fit the input it is the gradient of: sum over broadcast dims, cast dtype.
fn fit(g: Var, meta: &super::TensorMeta, node: &Node) -> Result<Var> {
    let mut g = g;
    if g.t.shape() != meta.shape.as_slice() {
        g = views::sum_to(&g, &meta.shape).map_err(|_| {
            Error::runtime(
                "backward",
                format!(
                    "Function {} returned an invalid gradient - got {} but expected shape compatible with {}",
                    node.name,
                    fmt_shape(g.t.shape()),
                    fmt_shape(&meta.shape)
                ),
            )
        })?;
    }
    if g.t.dtype() != meta.dtype {
        g = super::unary::to_dtype(&g, meta.dtype)?;
    }
    Ok(g)
}

fn zeros_like_meta(m: &super::TensorMeta) -> Result<Var> {
    Ok(Var::plain(Tensor::zeros("backward", &m.shape, m.dtype)?))
}

/// PyTorch's gradient layout contract: a leaf's `.grad` has the leaf's strides when the
/// leaf is dense (a permutation of contiguous, e.g. `w.t()`), else it is row-major.
fn obeys_layout_contract(g: &Tensor, leaf: &Tensor) -> bool {
    if !leaf.layout.is_dense() {
        return g.is_contiguous();
    }
    leaf.shape()
        .iter()
        .zip(leaf.strides().iter().zip(g.strides()))
        .all(|(&d, (&ls, &gs))| if d == 1 { gs != 0 } else { gs == ls })
}

/// A copy of `g` laid out as the contract asks for `leaf`.
fn copy_for_leaf(g: &Tensor, leaf: &Tensor) -> Result<Tensor> {
    let order = if leaf.layout.is_dense() {
        Order::preserve(&leaf.layout)
    } else {
        Order::row_major(leaf.shape())
    };
    g.copy_in(&order, g.dtype())
}

/// Adds `g` into a leaf's `.grad`, running its hooks.
fn accumulate_leaf(
    meta: &Rc<Meta>,
    leaf: Option<&Tensor>,
    g: Var,
    create_graph: bool,
) -> Result<()> {
    // a leaf that stopped requiring grad after the graph was built (`requires_grad_(False)`)
    // gets nothing, as PyTorch's AccumulateGrad checks at the time it runs
    if !meta.requires_grad.get() {
        return Ok(());
    }
    let mut g = g;
    let hooks: Vec<_> = meta.hooks.borrow().iter().map(|(_, h)| h.clone()).collect();
    for h in hooks {
        if let Some(r) = h(&g)? {
            g = r;
        }
    }
    {
        let mut slot = meta.grad.borrow_mut();
        match slot.take() {
            None => {
                // Keep the incoming buffer only if nothing else references it; otherwise
                // two leaves (or the caller) would share one `.grad` storage.
                let owned = std::sync::Arc::strong_count(&g.t.storage) == 1;
                let fits = leaf.is_none_or(|l| obeys_layout_contract(&g.t, l));
                let g = if create_graph {
                    g
                } else if owned && fits {
                    g.detach()
                } else {
                    Var::plain(match leaf {
                        Some(l) => copy_for_leaf(&g.t, l)?,
                        None => g.t.copy_as(g.t.dtype())?,
                    })
                };
                *slot = Some(g);
            }
            Some(prev) => {
                if create_graph || prev.requires_grad() {
                    *slot = Some(binary::add(&prev, &g)?);
                } else {
                    add_into(&prev.t, &g.t)?;
                    *slot = Some(prev);
                }
            }
        }
    }
    let post: Vec<_> = meta
        .post_acc_hooks
        .borrow()
        .iter()
        .map(|(_, h)| h.clone())
        .collect();
    if !post.is_empty() {
        // hooks receive the leaf tensor itself; the bindings wrap the meta as needed
        let leaf_grad = meta.grad.borrow().clone();
        if let Some(gv) = leaf_grad {
            for h in post {
                h(&gv)?;
            }
        }
    }
    Ok(())
}

/// Runs the backward pass from `roots` (each with the gradient of that root).
///
/// The steps, each a method of `GraphTask` below: seed the roots' gradients, count the
/// dependencies of every reachable node, resolve which gradients the caller asked for,
/// then run ready nodes latest-created first until none is left. Running a node means:
/// take the gradients it received, run its tensor hooks, hand requested gradients to the
/// caller, call its backward rule (or write a leaf's `.grad`), and send the results on
/// along its edges.
pub fn run(
    roots: &[(Var, Var)],
    retain_graph: bool,
    create_graph: bool,
    mode: Mode,
) -> Result<Vec<Option<Var>>> {
    let _grad_mode = GradMode::set(create_graph);
    let mut task = GraphTask::new(mode, retain_graph, create_graph);
    let root_nodes = task.seed_roots(roots)?;
    task.count_dependencies(&root_nodes);
    task.resolve_targets()?;
    task.schedule_roots(&root_nodes);
    while let Some(Ready(_, k)) = task.ready.pop() {
        // Ctrl-C during a long backward: a kernel may have stopped early, so nothing
        // computed after the request may reach a .grad
        crate::threads::check_interrupt("backward")?;
        task.run_node(k)?;
    }
    Ok(task.results)
}

impl Var {
    /// `loss.backward()` from Rust: runs the engine from this one-element result with a
    /// gradient of one, accumulating into the `.grad` of the leaves it depends on, and
    /// frees the graph (PyTorch's defaults: no `retain_graph`, no `create_graph`).
    /// [`run`] is the general form (several roots, other seeds, `autograd.grad`).
    ///
    /// # Errors
    /// PyTorch's messages for a result that does not require grad or has more than one
    /// element, and the engine's errors (a graph already freed, a saved tensor modified
    /// in place).
    ///
    /// ```
    /// use ferric::autograd::{pointwise, reduce, Var};
    /// use ferric::Tensor;
    ///
    /// let x = Var::leaf(Tensor::from_vec(vec![1.0f64, 2.0, 3.0], &[3])?, true)?;
    /// let y = reduce::sum(&pointwise::mul(&x, &x)?, None, false, None)?; // sum(x^2)
    /// y.backward()?;
    /// assert_eq!(x.grad().unwrap().to_vec::<f64>()?, vec![2.0, 4.0, 6.0]);
    /// # Ok::<(), ferric::Error>(())
    /// ```
    pub fn backward(&self) -> Result<()> {
        if !self.requires_grad() {
            return Err(Error::runtime(
                "",
                "element 0 of tensors does not require grad and does not have a grad_fn",
            ));
        }
        if self.t.numel() != 1 {
            return Err(Error::runtime(
                "",
                "grad can be implicitly created only for scalar outputs",
            ));
        }
        let seed = Tensor::full("backward", self.t.shape(), Scalar::Int(1), self.t.dtype())?;
        run(
            &[(self.clone(), Var::plain(seed))],
            false,
            false,
            Mode::Accumulate(None),
        )?;
        Ok(())
    }

    /// The gradient accumulated into this tensor by `backward` (PyTorch's `.grad`): a
    /// handle sharing the stored gradient's memory, or `None` before any backward pass
    /// reached it.
    ///
    /// ```
    /// use ferric::autograd::{pointwise, Var};
    /// use ferric::Tensor;
    ///
    /// let x = Var::leaf(Tensor::from_vec(vec![3.0f32], &[])?, true)?;
    /// assert!(x.grad().is_none());
    /// pointwise::mul_s(&x, 5.0)?.backward()?;
    /// assert_eq!(x.grad().unwrap().to_vec::<f32>()?, vec![5.0]);
    /// # Ok::<(), ferric::Error>(())
    /// ```
    pub fn grad(&self) -> Option<Tensor> {
        let meta = self.meta.as_ref()?;
        let g = meta.grad.borrow();
        g.as_ref().map(|g| g.t.clone())
    }
}

/// The state of one backward pass (PyTorch's `GraphTask`). Nodes are keyed by address.
struct GraphTask<'a> {
    mode: Mode<'a>,
    retain_graph: bool,
    create_graph: bool,
    /// The gradients each node has received so far, one slot per node output.
    buffers: HashMap<usize, Vec<Option<Var>>>,
    /// Every node reachable from the roots, plus the nodes of capture targets.
    nodes: HashMap<usize, Rc<Node>>,
    /// Per node: how many edges have yet to deliver a gradient to it.
    deps: HashMap<usize, usize>,
    /// Nodes with nothing left to wait for, highest sequence number first.
    ready: BinaryHeap<Ready>,
    /// (node, output slot) -> index in `results`: the gradients asked for by tensor.
    targets: HashMap<(usize, usize), usize>,
    /// `backward(inputs=...)`: the leaf accumulators that may run (None: all of them).
    accumulate_only: Option<HashMap<usize, ()>>,
    results: Vec<Option<Var>>,
}

impl<'a> GraphTask<'a> {
    fn new(mode: Mode<'a>, retain_graph: bool, create_graph: bool) -> GraphTask<'a> {
        GraphTask {
            mode,
            retain_graph,
            create_graph,
            buffers: HashMap::default(),
            nodes: HashMap::default(),
            deps: HashMap::default(),
            ready: BinaryHeap::new(),
            targets: HashMap::default(),
            accumulate_only: None,
            results: Vec::new(),
        }
    }

    /// Puts each root's gradient into the input buffer of the root's node; returns those
    /// nodes, each once.
    fn seed_roots(&mut self, roots: &[(Var, Var)]) -> Result<Vec<Rc<Node>>> {
        let mut root_nodes: Vec<Rc<Node>> = Vec::new();
        for (i, (out, grad)) in roots.iter().enumerate() {
            let edge = out.gradient_edge().ok_or_else(|| {
                Error::runtime(
                    "",
                    format!(
                        "element {i} of tensors does not require grad and does not have a grad_fn"
                    ),
                )
            })?;
            let k = key(&edge.node);
            let n_out = edge.node.outputs.len().max(1);
            let buf = self.buffers.entry(k).or_insert_with(|| vec![None; n_out]);
            if let Some(slot) = buf.get_mut(edge.input_nr) {
                accumulate_into(slot, grad.clone())?;
            }
            self.nodes.insert(k, edge.node.clone());
            // several roots may be outputs of one node (var_mean, aminmax): count its edges once
            if !root_nodes.iter().any(|n| Rc::ptr_eq(n, &edge.node)) {
                root_nodes.push(edge.node);
            }
        }
        Ok(root_nodes)
    }

    /// Walks everything reachable from the roots, counting the edges into each node.
    fn count_dependencies(&mut self, root_nodes: &[Rc<Node>]) {
        let mut seen: HashMap<usize, ()> = HashMap::default();
        let mut stack: Vec<Rc<Node>> = root_nodes.to_vec();
        for n in root_nodes {
            seen.insert(key(n), ());
        }
        while let Some(n) = stack.pop() {
            for e in n.next.iter().flatten() {
                let k = key(&e.node);
                *self.deps.entry(k).or_insert(0) += 1;
                if seen.insert(k, ()).is_none() {
                    self.nodes.insert(k, e.node.clone());
                    stack.push(e.node.clone());
                }
            }
        }
    }

    /// Finds where the gradients of the requested `inputs` arrive: for `autograd.grad`,
    /// every input; for `backward(inputs=...)`, the non-leaf inputs (leaves are handled by
    /// letting only their accumulators run).
    fn resolve_targets(&mut self) -> Result<()> {
        let n_results = match &self.mode {
            Mode::Capture(inputs) => {
                for (i, v) in inputs.iter().enumerate() {
                    let e = v.gradient_edge().ok_or_else(|| {
                        Error::runtime(
                            "grad",
                            "One of the differentiated Tensors does not require grad",
                        )
                    })?;
                    self.targets.insert((key(&e.node), e.input_nr), i);
                    self.nodes.entry(key(&e.node)).or_insert(e.node);
                }
                inputs.len()
            }
            Mode::Accumulate(Some(inputs)) => {
                let mut only = HashMap::default();
                for (i, v) in inputs.iter().enumerate() {
                    let e = v.gradient_edge().ok_or_else(|| {
                        Error::runtime(
                            "backward",
                            "One of the differentiated Tensors does not require grad",
                        )
                    })?;
                    if e.node.is_accumulate() {
                        only.insert(key(&e.node), ());
                    } else {
                        // a non-leaf input: its gradient goes to its .grad, like retain_grad
                        self.targets.insert((key(&e.node), e.input_nr), i);
                    }
                }
                self.accumulate_only = Some(only);
                inputs.len()
            }
            Mode::Accumulate(None) => 0,
        };
        self.results = vec![None; n_results];
        Ok(())
    }

    /// Marks the roots that no other reachable node feeds as ready.
    fn schedule_roots(&mut self, root_nodes: &[Rc<Node>]) {
        for n in root_nodes {
            let k = key(n);
            if self.deps.get(&k).copied().unwrap_or(0) == 0 && !self.ready.iter().any(|r| r.1 == k)
            {
                self.ready.push(Ready(n.seq, k));
            }
        }
    }

    /// Runs the ready node `k` on the gradients it received and passes its results on.
    fn run_node(&mut self, k: usize) -> Result<()> {
        let Some(node) = self.nodes.get(&k).cloned() else {
            return Ok(());
        };
        let Some(t0) = super::profile::now() else {
            return self.run_node_untimed(k, &node, None);
        };
        // PyTorch's profiler names: the leaves' node by its C++ class
        let name = match node.kind {
            NodeKind::Accumulate(_) => "torch::autograd::AccumulateGrad",
            NodeKind::Op { .. } => node.name.as_str(),
        };
        let r = self.run_node_untimed(k, &node, Some(name));
        super::profile::note(format!("autograd::engine::evaluate_function: {name}"), t0);
        r
    }

    /// `run_node`'s work; `timed` names the node when a profile notes its backward.
    fn run_node_untimed(&mut self, k: usize, node: &Node, timed: Option<&str>) -> Result<()> {
        let mut grads = self
            .buffers
            .remove(&k)
            .unwrap_or_else(|| vec![None; node.outputs.len().max(1)]);
        run_pre_hooks(node, &mut grads)?;
        self.deliver_requested(k, &grads)?;
        let t0 = timed.and_then(|_| super::profile::now());
        let input_grads = match &node.kind {
            NodeKind::Accumulate(meta) => {
                if self.may_accumulate(k) {
                    if let Some(Some(g)) = grads.into_iter().next() {
                        accumulate_leaf(meta, node.variable.as_ref(), g, self.create_graph)?;
                    }
                }
                Vec::new()
            }
            NodeKind::Op { backward, saves } => {
                call_backward(node, backward, *saves, grads, self.retain_graph)?
            }
        };
        if let (Some(name), Some(t0)) = (timed, t0) {
            super::profile::note(name, t0);
        }
        self.send_to_inputs(node, input_grads)
    }

    /// Hands the gradients of node `k`'s outputs that the caller asked for to the caller:
    /// into `results` for `autograd.grad`, into the tensor's `.grad` for
    /// `backward(inputs=...)`.
    fn deliver_requested(&mut self, k: usize, grads: &[Option<Var>]) -> Result<()> {
        for (slot, g) in grads.iter().enumerate() {
            if let Some(&ri) = self.targets.get(&(k, slot)) {
                if let Some(g) = g {
                    match &self.mode {
                        Mode::Capture(_) => self.results[ri] = Some(g.clone()),
                        Mode::Accumulate(Some(inputs)) => {
                            if let Some(m) = inputs[ri].meta.as_ref() {
                                let mut s = m.grad.borrow_mut();
                                let cur = s.take();
                                *s = Some(match cur {
                                    None => g.detach(),
                                    Some(p) => binary::add(&p, g)?,
                                });
                            }
                        }
                        Mode::Accumulate(None) => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether the leaf accumulator `k` writes `.grad` in this pass: never for
    /// `autograd.grad`, only the requested leaves' for `backward(inputs=...)`.
    fn may_accumulate(&self, k: usize) -> bool {
        match (&self.mode, &self.accumulate_only) {
            (Mode::Capture(_), _) => false,
            (_, Some(only)) => only.contains_key(&k),
            _ => true,
        }
    }

    /// Sends each input gradient of `node` along its edge: fitted to the input's shape
    /// and dtype, summed into the next node's buffer; a node whose last awaited edge
    /// this was becomes ready.
    fn send_to_inputs(&mut self, node: &Node, input_grads: Vec<Option<Var>>) -> Result<()> {
        for (i, g) in input_grads.into_iter().enumerate() {
            let Some(Some(edge)) = node.next.get(i) else {
                continue;
            };
            let nk = key(&edge.node);
            if let Some(g) = g {
                let g = fit(g, &node.inputs[i], node)?;
                let n_out = edge.node.outputs.len().max(1);
                let buf = self.buffers.entry(nk).or_insert_with(|| vec![None; n_out]);
                if let Some(s) = buf.get_mut(edge.input_nr) {
                    accumulate_into(s, g)?;
                }
            }
            if let Some(d) = self.deps.get_mut(&nk) {
                *d -= 1;
                if *d == 0 {
                    self.ready.push(Ready(edge.node.seq, nk));
                }
            }
        }
        Ok(())
    }
}

/// Runs the hooks registered on `node`'s outputs (tensor hooks, retain_grad) on the
/// gradients it received; a hook may replace its gradient.
fn run_pre_hooks(node: &Node, grads: &mut [Option<Var>]) -> Result<()> {
    let pre: Vec<_> = node
        .pre_hooks
        .borrow()
        .iter()
        .map(|(i, _, h)| (*i, h.clone()))
        .collect();
    for (slot, h) in pre {
        if let Some(Some(g)) = grads.get(slot) {
            if let Some(r) = h(g)? {
                grads[slot] = Some(r);
            }
        }
    }
    Ok(())
}

/// Calls an op node's backward rule: outputs that received no gradient get zeros; the
/// rule (and the tensors it saved) is released afterwards unless the graph is retained,
/// so a second run raises PyTorch's error. Anomaly mode checks the result for NaN.
fn call_backward(
    node: &Node,
    backward: &RefCell<Option<BackwardFn>>,
    saves: bool,
    grads: Vec<Option<Var>>,
    retain_graph: bool,
) -> Result<Vec<Option<Var>>> {
    let outs: Vec<Var> = grads
        .into_iter()
        .enumerate()
        .map(|(i, g)| match g {
            Some(g) => Ok(g),
            None => zeros_like_meta(&node.outputs[i]),
        })
        .collect::<Result<_>>()?;
    let needs: Vec<bool> = node.next.iter().map(|e| e.is_some()).collect();
    let mut slot = backward.borrow_mut();
    let Some(f) = slot.as_mut() else {
        return Err(Error::runtime(
            "",
            "Trying to backward through the graph a second time (or directly access saved tensors \
             after they have already been freed). Saved intermediate values of the graph are freed \
             when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to \
             backward through the graph a second time or if you need to access saved tensors after \
             calling backward.",
        ));
    };
    let r = f(&outs, &needs).map_err(|e| with_trace(e, node))?;
    if !retain_graph && saves {
        slot.take();
        node.released.set(true);
    }
    drop(slot);
    if super::is_anomaly_enabled() {
        check_nan(node, &r)?;
    }
    Ok(r)
}

fn with_trace(e: Error, node: &Node) -> Error {
    match node.trace.borrow().as_ref() {
        Some(t) => Error {
            kind: e.kind,
            msg: format!(
                "{}\n\nError detected in {}. Traceback of forward call that caused the error:\n{t}",
                e.msg, node.name
            ),
        },
        None => e,
    }
}

fn check_nan(node: &Node, grads: &[Option<Var>]) -> Result<()> {
    for (i, g) in grads.iter().enumerate() {
        if let Some(g) = g {
            if g.t.dtype().is_float() && g.t.to_vec::<f64>()?.iter().any(|x| x.is_nan()) {
                let mut msg = format!(
                    "Function '{}' returned nan values in its {i}th output.",
                    node.name
                );
                if let Some(t) = node.trace.borrow().as_ref() {
                    msg.push_str(&format!(
                        "\n\nTraceback of forward call that caused the error:\n{t}"
                    ));
                }
                return Err(Error::runtime("", msg));
            }
        }
    }
    Ok(())
}
