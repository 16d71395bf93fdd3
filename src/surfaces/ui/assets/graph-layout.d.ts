/** Types of graph-layout.js (plain JavaScript the browser runs), for its tests. */
export interface GraphShape {
  nodes: { id: string }[];
  edges: {
    source: string;
    target: string;
    conditional: boolean;
    label: string | null;
    guessed?: boolean;
  }[];
}
export interface PlacedNode {
  id: string;
  label: string;
  x: number;
  y: number;
  w: number;
  h: number;
  layer: number;
}
export interface PlacedEdge {
  source: string;
  target: string;
  conditional: boolean;
  label: string | null;
  guessed: boolean;
  back: boolean;
  path: string;
  labelAt: { x: number; y: number };
}
export const START: '__start__';
export const END: '__end__';
export function nodeLabel(id: string): string;
export function layoutGraph(graph: GraphShape): {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
};
