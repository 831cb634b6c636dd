/**
 * Finds the closed tickets most like a text (docs/assistant.md, "How it works"), on PostgreSQL
 * alone:
 * 1. the text's lexemes (English stemming), of which the 12 rarest in the projects' corpus (fewest
 *    documents, ai_lexeme_df) make the query: rare words say what a ticket is about, common ones
 *    ("please", "issue") match everything;
 * 2. closed tickets sharing at least two of the 6 rarest (an OR of their pairs), ranked by
 *    ts_rank_cd against all 12 (title weighs most), the best 50, among the newest 2,000 matches.
 *    Ranking every ticket that shares a single word would rank a large part of a big corpus; only
 *    when the pairs find too few does it fall back to tickets sharing any one word (the newest 500
 *    ranked);
 * 3. reranked: similarity = 0.7 x (rank / the text's own rank against the query, at most 1)
 *    + 0.3 x trigram similarity of the titles, so it lies in 0..1 and a ticket worded like the
 *    text scores near 1.
 */
import type pg from 'pg';
import { newestMatches, type IdWindow } from './newest-matches.js';

/** Rarest lexemes of the text kept in the query. */
export const QUERY_LEXEMES = 12;
/** Words of the text no other ticket uses that still count in its own rank. */
export const UNMATCHED_LEXEMES = 3;
/** Candidates ranked in SQL before the rerank. */
export const CANDIDATES = 50;
/**
 * Matching tickets ranked at most, the newest first: ranking is the cost, and a query matching more
 * than this says little about any one of them (recent resolutions are the likelier answer anyway).
 */
export const RANKED = 2_000;
/** The rarest lexemes whose pairs select candidates first. */
export const PAIRED_LEXEMES = 6;
/**
 * Tickets ranked at most when only single words are shared (the last tier): ranking against a
 * dozen-word query costs about 25 µs a ticket, and such candidates are weak anyway.
 */
export const RANKED_ANY_WORD = 500;

export interface Neighbour {
  ticketId: number;
  projectId: number;
  ticketNumber: string;
  title: string;
  similarity: number;
  priority: string;
  tags: string[];
  assignedTo: number | null;
  resolutionReply: string | null;
  resolutionCommentId: number | null;
  closedAt: Date | null;
}

export interface SimilarQuery {
  projectIds: readonly number[];
  title: string;
  /** Everything else that describes the problem (description, the customer's last comment). */
  body: string;
  /** Left out of the answer (the ticket itself). */
  excludeTicketId?: number;
  /** Only tickets with a resolution reply (suggestions), or every closed ticket (triage). */
  withReply: boolean;
  limit: number;
}

export interface Retriever {
  similarClosed(query: SimilarQuery): Promise<Neighbour[]>;
}

/** A lexeme as a tsquery operand: quoted, with quotes and backslashes escaped. */
const operand = (lexeme: string) => `'${lexeme.replace(/['\\]/g, '\\$&')}'`;

interface CandidateRow {
  ticket_id: number;
  project_id: number;
  ticket_number: string;
  title: string;
  priority: string;
  tags: string[];
  assigned_to: number | null;
  resolution_reply: string | null;
  resolution_comment_id: number | null;
  closed_at: Date | null;
  rank: number;
  self_rank: number;
  title_similarity: number;
}

/** Which closed tickets a tier of the search ranks. */
interface Tier {
  /** A tsquery ('simple') of the text's lexemes. */
  match: string;
  /** An upper bound of the documents it matches, from the lexemes' frequencies. */
  matchesAtMost: number;
  /** The newest matches ranked at most. */
  ranked: number;
}

interface CountedLexeme {
  lexeme: string;
  others: number;
}

/** Tickets sharing at least two of the lexemes (rarest first): an OR of their pairs. */
function pairsOf(lexemes: readonly CountedLexeme[]): Tier {
  const operands = lexemes.map((row) => operand(row.lexeme));
  const pairs = operands.flatMap((left, i) => operands.slice(i + 1).map((right) => `(${left} & ${right})`));
  // A pair matches at most its rarer lexeme's documents: the i-th rarest is the rarer of n-1-i pairs.
  const matchesAtMost = lexemes.reduce((sum, row, i) => sum + row.others * (lexemes.length - 1 - i), 0);
  return { match: pairs.join(' | '), matchesAtMost, ranked: RANKED };
}

interface RankedRow {
  ticket_id: number;
  rank: number;
}

export function createRetriever(pool: pg.Pool): Retriever {
  /**
   * Closed tickets matching the tier, the newest of them ranked against `rankBy`: the best
   * CANDIDATES, with the text's own rank and the titles' trigram similarity for the rerank.
   */
  async function candidates(
    query: SimilarQuery,
    newestId: number,
    tier: Tier,
    rankBy: string,
    selfRankBy: string,
  ): Promise<CandidateRow[]> {
    const readWindow = async (window: IdWindow) => {
      const { rows } = await pool.query<RankedRow>(
        `SELECT ticket_id, ts_rank_cd(tsv, to_tsquery('simple', $2), 32) AS rank
           FROM ai_documents
          WHERE project_id = ANY($1::int[]) AND is_closed AND NOT deleted
            AND ($3::boolean IS FALSE OR resolution_reply IS NOT NULL)
            AND ticket_id <> $4 AND tsv @@ to_tsquery('simple', $5)
            AND ticket_id > $6 AND ticket_id <= $7
          ORDER BY ticket_id DESC LIMIT $8`,
        [
          query.projectIds,
          rankBy,
          query.withReply,
          query.excludeTicketId ?? 0,
          tier.match,
          window.above,
          window.upTo,
          window.limit,
        ],
      );
      return rows;
    };
    const ranked = await newestMatches(newestId, tier.ranked, readWindow, tier.matchesAtMost);
    const best = ranked.sort((a, b) => b.rank - a.rank || b.ticket_id - a.ticket_id).slice(0, CANDIDATES);
    if (best.length === 0) return [];
    const { rows } = await pool.query<CandidateRow>(
      `WITH self AS (SELECT ts_rank_cd(setweight(to_tsvector('english', $3), 'A') ||
                                       setweight(to_tsvector('english', $4), 'B'),
                                       to_tsquery('simple', $5), 32) AS rank)
       SELECT d.ticket_id, d.project_id, d.ticket_number, d.title, d.priority, d.tags, d.assigned_to,
              d.resolution_reply, d.resolution_comment_id, d.closed_at, b.rank, self.rank AS self_rank,
              similarity(d.title, $3) AS title_similarity
         FROM unnest($1::int[], $2::float8[]) AS b(ticket_id, rank)
         JOIN ai_documents d USING (ticket_id), self`,
      [best.map((row) => row.ticket_id), best.map((row) => row.rank), query.title, query.body, selfRankBy],
    );
    return rows;
  }

  return {
    async similarClosed(query) {
      if (query.projectIds.length === 0) return [];
      // Counts leave out the ticket itself when the corpus has it. Words no other ticket uses (a new
      // topic, a name) match nothing, so they do not select or rank candidates, but up to
      // UNMATCHED_LEXEMES of them still count in the text's own rank: a ticket that shares only a
      // common word with the text then scores low instead of looking like a perfect match.
      const { rows: counted } = await pool.query<CountedLexeme>(
        `SELECT l.lexeme, coalesce(f.documents, 0) - (own.lexeme IS NOT NULL)::int AS others
           FROM unnest(tsvector_to_array(to_tsvector('english', $2))) AS l(lexeme)
           LEFT JOIN (SELECT lexeme, sum(documents)::int AS documents FROM ai_lexeme_df
                       WHERE project_id = ANY($1::int[])
                         AND lexeme = ANY(tsvector_to_array(to_tsvector('english', $2)))
                       GROUP BY lexeme) f ON f.lexeme = l.lexeme
           LEFT JOIN (SELECT unnest(tsvector_to_array(tsv)) AS lexeme FROM ai_documents WHERE ticket_id = $3) own
                  ON own.lexeme = l.lexeme
          ORDER BY others, l.lexeme`,
        [query.projectIds, `${query.title} ${query.body}`, query.excludeTicketId ?? 0],
      );
      const lexemes = counted.filter((row) => row.others > 0).slice(0, QUERY_LEXEMES);
      const unmatched = counted.filter((row) => row.others <= 0).slice(0, UNMATCHED_LEXEMES);
      const operands = lexemes.map((row) => operand(row.lexeme));
      const rankBy = operands.join(' | ');
      const selfRankBy = [...operands, ...unmatched.map((row) => operand(row.lexeme))].join(' | ');
      const { rows: newest } = await pool.query<{ ticket_id: number }>(
        'SELECT coalesce(max(ticket_id), 0) AS ticket_id FROM ai_documents',
      );
      const tiers: Tier[] = [
        pairsOf(lexemes.slice(0, PAIRED_LEXEMES)),
        {
          match: rankBy,
          matchesAtMost: lexemes.reduce((sum, row) => sum + row.others, 0),
          ranked: RANKED_ANY_WORD,
        },
      ];
      let rows: CandidateRow[] = [];
      for (const tier of tiers) {
        if (tier.match === '') continue;
        rows = await candidates(query, newest[0]!.ticket_id, tier, rankBy, selfRankBy);
        if (rows.length >= Math.min(query.limit, 5)) break;
      }
      return rows
        .map((row) => ({
          ticketId: row.ticket_id,
          projectId: row.project_id,
          ticketNumber: row.ticket_number,
          title: row.title,
          priority: row.priority,
          tags: row.tags,
          assignedTo: row.assigned_to,
          resolutionReply: row.resolution_reply,
          resolutionCommentId: row.resolution_comment_id,
          closedAt: row.closed_at,
          similarity:
            0.7 * (row.self_rank > 0 ? Math.min(1, row.rank / row.self_rank) : 0) +
            0.3 * row.title_similarity,
        }))
        .sort((a, b) => b.similarity - a.similarity || b.ticketId - a.ticketId)
        .slice(0, query.limit);
    },
  };
}
