//! `backward()` and `autograd.grad()`: walks the recorded graph from the outputs.
//!
//! Like PyTorch's engine: count, for every reachable node, how many edges point at it;
//! then repeatedly run the ready node with the highest sequence number (the most recently
//! created), summing the gradients arriving for each of its outputs in an input buffer.
//! Broadcast gradients are reduced to the input's shape here, once, for every op.

use super::{pointwise as binary, views, GradMode, Meta, Node, NodeKind, Var};
use crate::error::{fmt_shape, Error, Result};
use crate::memory_order::Order;
use crate::tensor::Tensor;
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
pub fn run(
    roots: &[(Var, Var)],
    retain_graph: bool,
    create_graph: bool,
    mode: Mode,
) -> Result<Vec<Option<Var>>> {
    let _grad_mode = GradMode::set(create_graph);

    // 1. root edges
    let mut buffers: HashMap<usize, Vec<Option<Var>>> = HashMap::default();
    let mut nodes: HashMap<usize, Rc<Node>> = HashMap::default();
    let mut root_nodes = Vec::new();
    for (i, (out, grad)) in roots.iter().enumerate() {
        let edge = out.gradient_edge().ok_or_else(|| {
            Error::runtime(
                "",
                format!("element {i} of tensors does not require grad and does not have a grad_fn"),
            )
        })?;
        let k = key(&edge.node);
        let n_out = edge.node.outputs.len().max(1);
        let buf = buffers.entry(k).or_insert_with(|| vec![None; n_out]);
        if let Some(slot) = buf.get_mut(edge.input_nr) {
            accumulate_into(slot, grad.clone())?;
        }
        nodes.insert(k, edge.node.clone());
        // several roots may be outputs of one node (var_mean, aminmax): count its edges once
        if !root_nodes.iter().any(|n| Rc::ptr_eq(n, &edge.node)) {
            root_nodes.push(edge.node);
        }
    }

    // 2. dependency counts over everything reachable
    let mut deps: HashMap<usize, usize> = HashMap::default();
    let mut seen: HashMap<usize, ()> = HashMap::default();
    let mut stack: Vec<Rc<Node>> = root_nodes.clone();
    for n in &root_nodes {
        seen.insert(key(n), ());
    }
    while let Some(n) = stack.pop() {
        for e in n.next.iter().flatten() {
            let k = key(&e.node);
            *deps.entry(k).or_insert(0) += 1;
            if seen.insert(k, ()).is_none() {
                nodes.insert(k, e.node.clone());
                stack.push(e.node.clone());
            }
        }
    }

    // 3. capture targets: (node, slot) -> result index
    let mut targets: HashMap<(usize, usize), usize> = HashMap::default();
    let mut accumulate_only: Option<HashMap<usize, ()>> = None;
    let n_results = match &mode {
        Mode::Capture(inputs) => {
            for (i, v) in inputs.iter().enumerate() {
                let e = v.gradient_edge().ok_or_else(|| {
                    Error::runtime(
                        "grad",
                        "One of the differentiated Tensors does not require grad",
                    )
                })?;
                targets.insert((key(&e.node), e.input_nr), i);
                nodes.entry(key(&e.node)).or_insert(e.node);
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
                    targets.insert((key(&e.node), e.input_nr), i);
                }
            }
            accumulate_only = Some(only);
            inputs.len()
        }
        Mode::Accumulate(None) => 0,
    };
    let mut results: Vec<Option<Var>> = vec![None; n_results];

    // 4. execute in decreasing sequence order
    let mut heap: BinaryHeap<Ready> = BinaryHeap::new();
    for n in &root_nodes {
        let k = key(n);
        if deps.get(&k).copied().unwrap_or(0) == 0 && !heap.iter().any(|r| r.1 == k) {
            heap.push(Ready(n.seq, k));
        }
    }
    while let Some(Ready(_, k)) = heap.pop() {
        // Ctrl-C during a long backward: a kernel may have stopped early, so nothing
        // computed after the request may reach a .grad
        crate::threads::check_interrupt("backward")?;
        let Some(node) = nodes.get(&k).cloned() else {
            continue;
        };
        let mut grads = buffers
            .remove(&k)
            .unwrap_or_else(|| vec![None; node.outputs.len().max(1)]);

        // hooks registered on this node's outputs (tensor hooks, retain_grad)
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
        for (slot, g) in grads.iter().enumerate() {
            if let Some(&ri) = targets.get(&(k, slot)) {
                if let Some(g) = g {
                    match &mode {
                        Mode::Capture(_) => results[ri] = Some(g.clone()),
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

        let input_grads: Vec<Option<Var>> = match &node.kind {
            NodeKind::Accumulate(meta) => {
                let run_it = match (&mode, &accumulate_only) {
                    (Mode::Capture(_), _) => false,
                    (_, Some(only)) => only.contains_key(&k),
                    _ => true,
                };
                if run_it {
                    if let Some(Some(g)) = grads.into_iter().next() {
                        accumulate_leaf(meta, node.variable.as_ref(), g, create_graph)?;
                    }
                }
                Vec::new()
            }
            NodeKind::Op { backward, saves } => {
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
                let r = f(&outs, &needs).map_err(|e| with_trace(e, &node))?;
                if !retain_graph && *saves {
                    slot.take();
                    node.released.set(true);
                }
                drop(slot);
                if super::is_anomaly_enabled() {
                    check_nan(&node, &r)?;
                }
                r
            }
        };

        for (i, g) in input_grads.into_iter().enumerate() {
            let Some(Some(edge)) = node.next.get(i) else {
                continue;
            };
            let nk = key(&edge.node);
            if let Some(g) = g {
                let g = fit(g, &node.inputs[i], &node)?;
                let n_out = edge.node.outputs.len().max(1);
                let buf = buffers.entry(nk).or_insert_with(|| vec![None; n_out]);
                if let Some(s) = buf.get_mut(edge.input_nr) {
                    accumulate_into(s, g)?;
                }
            }
            if let Some(d) = deps.get_mut(&nk) {
                *d -= 1;
                if *d == 0 {
                    heap.push(Ready(edge.node.seq, nk));
                }
            }
        }
    }
    Ok(results)
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
