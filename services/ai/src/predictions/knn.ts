/**
 * Triage by k nearest neighbours (docs/assistant.md, "How it works"): among the K closed tickets
 * most like a ticket, the share of similarity that votes for each value, P(v) = sum(sim_i for
 * label_i = v) / sum(sim_i), and confidence = max P x min(1, sum(sim_i) / 3), which falls when the
 * neighbours are few or weak.
 */
import type { Neighbour } from '../retrieval/retriever.js';

export const K = 15;

export interface Vote<V> {
  value: V;
  confidence: number;
  /** Neighbours that voted for the value, and how many voted at all. */
  agreeing: number;
  voting: number;
}

const round = (value: number) => Math.round(value * 1000) / 1000;

/** The value most of the neighbours' similarity votes for (null when none has a label). */
export function vote<V>(
  neighbours: readonly Neighbour[],
  label: (neighbour: Neighbour) => V | null,
): Vote<V> | null {
  const weights = new Map<V, { weight: number; count: number }>();
  let total = 0;
  let voting = 0;
  for (const neighbour of neighbours) {
    const value = label(neighbour);
    if (value === null) continue;
    const entry = weights.get(value) ?? { weight: 0, count: 0 };
    entry.weight += neighbour.similarity;
    entry.count += 1;
    weights.set(value, entry);
    total += neighbour.similarity;
    voting += 1;
  }
  if (total <= 0) return null;
  const [value, best] = [...weights.entries()].sort((a, b) => b[1].weight - a[1].weight)[0]!;
  return {
    value,
    confidence: round((best.weight / total) * Math.min(1, total / 3)),
    agreeing: best.count,
    voting,
  };
}

/** Tags at least `minShare` of the similarity carries, each with its share. */
export function tagVotes(
  neighbours: readonly Neighbour[],
  minShare = 0.5,
): { tags: string[]; confidence: number } | null {
  const total = neighbours.reduce((sum, neighbour) => sum + neighbour.similarity, 0);
  if (total <= 0) return null;
  const shares = new Map<string, number>();
  for (const neighbour of neighbours)
    for (const tag of new Set(neighbour.tags))
      shares.set(tag, (shares.get(tag) ?? 0) + neighbour.similarity / total);
  const chosen = [...shares.entries()].filter(([, share]) => share >= minShare).sort((a, b) => b[1] - a[1]);
  if (chosen.length === 0) return null;
  const meanShare = chosen.reduce((sum, [, share]) => sum + share, 0) / chosen.length;
  return { tags: chosen.map(([tag]) => tag).sort(), confidence: round(meanShare * Math.min(1, total / 3)) };
}
