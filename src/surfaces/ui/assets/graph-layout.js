/**
 * Where each node and edge of a workflow graph goes (`GET /catalog`'s `graph`, LangGraph's
 * `getGraph()`): a layered drawing, top to bottom. Each node's layer is the longest path to
 * it from `__start__`, so every edge but a loop's goes down; the edges that close a loop
 * (found by a depth-first walk from `__start__`) are drawn back up on the right. An edge that
 * skips layers goes around the rows it skips rather than through their boxes. Small graphs
 * (a workflow has tens of nodes at most), so no crossing reduction: rows keep the graph's
 * node order, which is the order the nodes were added.
 */

const NODE_HEIGHT = 34;
const LAYER_GAP = 64;
const NODE_GAP = 28;
const MARGIN = 16;
const CHAR_WIDTH = 7.4; // the 13 px system font's average width, for box sizes without measuring

/** LangGraph's names for the graph's entry and exit. */
export const START = '__start__';
export const END = '__end__';

export function nodeLabel(id) {
  return id === START ? 'start' : id === END ? 'end' : id;
}

/**
 * `{ width, height, nodes: [{ id, label, x, y, w, h, layer }], edges: [{ source, target,
 * conditional, label, guessed, path, labelAt: {x, y}, back }] }` for `graph` (`{ nodes, edges }`).
 */
export function layoutGraph(graph) {
  const ids = graph.nodes.map((node) => node.id);
  const known = new Set(ids);
  const edges = graph.edges.filter((e) => known.has(e.source) && known.has(e.target));
  const back = loopClosers(ids, edges);
  const layer = longestPathLayers(ids, edges, back);

  const rows = [];
  // Layers have no gaps: a node on layer k > 0 has a predecessor on layer k - 1.
  for (const id of ids) {
    const index = layer.get(id);
    rows[index] = [...(rows[index] ?? []), id];
  }
  const boxes = new Map();
  const rowWidths = rows.map(
    (row) => row.reduce((sum, id) => sum + boxWidth(id), 0) + NODE_GAP * (row.length - 1),
  );
  const widest = Math.max(0, ...rowWidths);
  rows.forEach((row, index) => {
    let x = MARGIN + (widest - rowWidths[index]) / 2;
    const y = MARGIN + index * (NODE_HEIGHT + LAYER_GAP);
    for (const id of row) {
      const w = boxWidth(id);
      boxes.set(id, { id, label: nodeLabel(id), x, y, w, h: NODE_HEIGHT, layer: index });
      x += w + NODE_GAP;
    }
  });

  // Room on the right for the edges that go around rows or back up.
  let lanes = 0;
  const lane = () => MARGIN + widest + 18 + 14 * lanes++;
  const drawn = edges.map((edge, index) => {
    const from = boxes.get(edge.source);
    const to = boxes.get(edge.target);
    const { path, labelAt } = back.has(index)
      ? backPath(from, to, lane())
      : to.layer - from.layer > 1 && blocked(from, to, rows, boxes)
        ? aroundPath(from, to, lane(), spread(edge, edges, boxes))
        : downPath(from, to, spread(edge, edges, boxes));
    return {
      source: edge.source,
      target: edge.target,
      conditional: Boolean(edge.conditional),
      label: edge.label ?? null,
      guessed: Boolean(edge.guessed),
      back: back.has(index),
      path,
      labelAt,
    };
  });
  const height = MARGIN * 2 + rows.length * NODE_HEIGHT + Math.max(0, rows.length - 1) * LAYER_GAP;
  return {
    width: MARGIN * 2 + widest + (lanes > 0 ? 18 + 14 * lanes : 0),
    height,
    nodes: [...boxes.values()],
    edges: drawn,
  };
}

function boxWidth(id) {
  return Math.max(72, Math.round(nodeLabel(id).length * CHAR_WIDTH + 28));
}

/** The indices of the edges that close a loop: they point to a node still on the walk's path. */
function loopClosers(ids, edges) {
  const out = new Map(ids.map((id) => [id, []]));
  edges.forEach((edge, index) => {
    out.get(edge.source).push(index);
  });
  const state = new Map(); // id -> 'open' while on the path, 'done' after
  const back = new Set();
  const walk = (id) => {
    state.set(id, 'open');
    for (const index of out.get(id)) {
      const next = edges[index].target;
      if (state.get(next) === 'open') back.add(index);
      else if (!state.has(next)) walk(next);
    }
    state.set(id, 'done');
  };
  if (out.has(START)) walk(START);
  for (const id of ids) if (!state.has(id)) walk(id); // nodes no path from start reaches
  return back;
}

/** Each node's layer: the longest path to it over the edges that do not close a loop. */
function longestPathLayers(ids, edges, back) {
  const forward = edges.filter((_, index) => !back.has(index));
  const incoming = new Map(ids.map((id) => [id, 0]));
  for (const edge of forward) incoming.set(edge.target, incoming.get(edge.target) + 1);
  const layer = new Map(ids.map((id) => [id, 0]));
  const ready = ids.filter((id) => incoming.get(id) === 0);
  while (ready.length > 0) {
    const id = ready.shift();
    for (const edge of forward) {
      if (edge.source !== id) continue;
      layer.set(edge.target, Math.max(layer.get(edge.target), layer.get(id) + 1));
      incoming.set(edge.target, incoming.get(edge.target) - 1);
      if (incoming.get(edge.target) === 0) ready.push(edge.target);
    }
  }
  return layer;
}

/** Whether a box of a row between `from` and `to` stands across the straight way down. */
function blocked(from, to, rows, boxes) {
  const left = Math.min(from.x, to.x);
  const right = Math.max(from.x + from.w, to.x + to.w);
  for (let index = from.layer + 1; index < to.layer; index++) {
    for (const id of rows[index] ?? []) {
      const box = boxes.get(id);
      if (box.x < right && box.x + box.w > left) return true;
    }
  }
  return false;
}

/** Where on its source's bottom an edge leaves, so a node's edges do not share one point. */
function spread(edge, edges, boxes) {
  const siblings = edges.filter((e) => e.source === edge.source);
  if (siblings.length < 2) return 0.5;
  const order = siblings
    .map((e) => e.target)
    .sort((a, b) => boxes.get(a).x - boxes.get(b).x)
    .indexOf(edge.target);
  return 0.2 + (0.6 * order) / (siblings.length - 1);
}

function downPath(from, to, at) {
  const x1 = from.x + from.w * at;
  const y1 = from.y + from.h;
  const x2 = to.x + to.w / 2;
  const y2 = to.y;
  const bend = (y2 - y1) / 2;
  return {
    path: `M${x1} ${y1} C${x1} ${y1 + bend} ${x2} ${y2 - bend} ${x2} ${y2}`,
    labelAt: { x: (x1 + x2) / 2, y: (y1 + y2) / 2 },
  };
}

function aroundPath(from, to, laneX, at) {
  const x1 = from.x + from.w * at;
  const y1 = from.y + from.h;
  const x2 = to.x + to.w / 2;
  const y2 = to.y;
  return {
    path:
      `M${x1} ${y1} C${x1} ${y1 + 28} ${laneX} ${y1 + 8} ${laneX} ${y1 + 40}` +
      ` L${laneX} ${y2 - 40} C${laneX} ${y2 - 8} ${x2} ${y2 - 28} ${x2} ${y2}`,
    labelAt: { x: laneX, y: (y1 + y2) / 2 },
  };
}

function backPath(from, to, laneX) {
  const x1 = from.x + from.w;
  const y1 = from.y + from.h / 2;
  const x2 = to.x + to.w;
  const y2 = to.y + to.h / 2;
  return {
    path: `M${x1} ${y1} C${laneX} ${y1} ${laneX} ${y1} ${laneX} ${y1 - 12} L${laneX} ${y2 + 12} C${laneX} ${y2} ${laneX} ${y2} ${x2} ${y2}`,
    labelAt: { x: laneX, y: (y1 + y2) / 2 },
  };
}
