/**
 * Ranked search over the tickets of the projects a caller may see: titles and descriptions (the
 * ticket's weighted tsvector) and comments (internal notes only for callers who may read them),
 * each ticket once with its best match, newest first among equals (among the newest SEARCH_RANKED
 * matches of each kind). A query shaped like a ticket number (SUP-42, sup-42) finds that ticket.
 * Snippets come from ts_headline with control characters as match markers, so the passage is
 * HTML-escaped first and only our <mark> tags are markup.
 */
import type pg from 'pg';
import { paginationOf, type PageWindow } from '@tix/protos';
import { escapeHtml } from '../assist/compose.js';
import { newestMatches } from '../retrieval/newest-matches.js';

const TICKET_NUMBER = /^[A-Za-z][A-Za-z0-9]*-[1-9][0-9]{0,9}$/;
/**
 * Matching tickets and matching comments ranked at most, the newest of each: ranking is the cost,
 * and a query matching more than this is one to refine. `total` counts what is ranked, so every page
 * it announces can be reached.
 */
export const SEARCH_RANKED = 300;
const START = '\u0001';
const STOP = '\u0002';
const HEADLINE = `StartSel=${START}, StopSel=${STOP}, MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;

export interface SearchHitRow {
  ticket_id: number;
  project_id: number;
  ticket_number: string;
  title: string;
  status: string;
  rank: number;
  matched_in: 'title' | 'description' | 'comment' | 'number';
  snippet: string;
  comment_id: number | null;
}

export interface SearchRequest {
  projectIds: readonly number[];
  q: string;
  page: PageWindow;
  includeInternal: boolean;
}

/** A headline's text with its markers turned into <mark>, everything else escaped. */
export function markSnippet(headline: string): string {
  return escapeHtml(headline).replaceAll(START, '<mark>').replaceAll(STOP, '</mark>');
}

export async function searchTickets(pool: pg.Pool, request: SearchRequest) {
  if (request.projectIds.length === 0) return { hits: [], pagination: paginationOf(0, request.page) };
  const q = request.q.trim();
  if (TICKET_NUMBER.test(q)) {
    const { rows } = await pool.query<SearchHitRow>(
      `SELECT ticket_id, project_id, ticket_number, title, status, 1::float8 AS rank, 'number' AS matched_in,
              title AS snippet, NULL::int AS comment_id
         FROM ai_documents
        WHERE upper(ticket_number) = upper($1) AND project_id = ANY($2::int[]) AND NOT deleted`,
      [q, request.projectIds],
    );
    const hits = rows.slice(request.page.offset, request.page.offset + request.page.perPage);
    return {
      hits: hits.map((row) => ({ ...row, snippet: escapeHtml(row.snippet) })),
      pagination: paginationOf(rows.length, request.page),
    };
  }
  const hits = await rankedMatches(pool, q, request);
  const page = hits.slice(request.page.offset, request.page.offset + request.page.perPage);
  const rows = page.length === 0 ? [] : await pageRows(pool, q, page);
  return {
    hits: rows.map((row) => ({ ...row, snippet: markSnippet(row.snippet) })),
    pagination: paginationOf(hits.length, request.page),
  };
}

interface RankedHit {
  ticket_id: number;
  rank: number;
  comment_id: number | null;
}

/**
 * Every ticket the search ranks, best first: the newest SEARCH_RANKED matching tickets and matching
 * comments (of tickets not deleted), each ticket once with its best match (its own text before a
 * comment of the same rank), equal ranks newest first.
 */
async function rankedMatches(pool: pg.Pool, q: string, request: SearchRequest): Promise<RankedHit[]> {
  // The newest ids, and how many documents the query matches at most from the frequencies of its
  // words (ai_lexeme_df): the rarest word's for words that must all occur, their sum when any may
  // (an `or`), unknown with a negation. Comments are not counted; the documents' figure stands in
  // for them (it only sizes the first window).
  const { rows: newest } = await pool.query<{
    ticket_id: number;
    comment_id: number;
    documents: number | null;
  }>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $1)::text AS query),
          frequencies AS (SELECT coalesce(array_agg(f.documents), '{}') AS documents
                            FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS l(lexeme)
                            LEFT JOIN (SELECT lexeme, sum(documents)::int AS documents FROM ai_lexeme_df
                                        WHERE project_id = ANY($2::int[])
                                          AND lexeme = ANY(tsvector_to_array(to_tsvector('english', $1)))
                                        GROUP BY lexeme) f USING (lexeme))
     SELECT (SELECT coalesce(max(ticket_id), 0) FROM ai_documents) AS ticket_id,
            (SELECT coalesce(max(id), 0) FROM ai_comments) AS comment_id,
            CASE WHEN q.query LIKE '%!%' THEN NULL
                 WHEN q.query LIKE '%|%' THEN (SELECT sum(coalesce(d, 0))::int FROM unnest(f.documents) d)
                 ELSE (SELECT min(coalesce(d, 0))::int FROM unnest(f.documents) d) END AS documents
       FROM q, frequencies f`,
    [q, request.projectIds],
  );
  const { ticket_id: newestTicket, comment_id: newestComment, documents: expected } = newest[0]!;
  const [documents, comments] = await Promise.all([
    newestMatches(
      newestTicket,
      SEARCH_RANKED,
      async (window) => {
        const { rows } = await pool.query<RankedHit>(
          `SELECT ticket_id, ts_rank_cd(tsv, query) AS rank, NULL::int AS comment_id
           FROM ai_documents, websearch_to_tsquery('english', $1) query
          WHERE project_id = ANY($2::int[]) AND NOT deleted AND tsv @@ query
            AND ticket_id > $3 AND ticket_id <= $4
          ORDER BY ticket_id DESC LIMIT $5`,
          [q, request.projectIds, window.above, window.upTo, window.limit],
        );
        return rows;
      },
      expected ?? Infinity,
    ),
    newestMatches(
      newestComment,
      SEARCH_RANKED,
      async (window) => {
        const { rows } = await pool.query<RankedHit>(
          `SELECT c.ticket_id, 0.8 * ts_rank_cd(c.tsv, query) AS rank, c.id AS comment_id
           FROM ai_comments c, websearch_to_tsquery('english', $1) query
          WHERE c.project_id = ANY($2::int[]) AND NOT c.deleted AND ($3 OR NOT c.is_internal) AND c.tsv @@ query
            AND c.id > $4 AND c.id <= $5
          ORDER BY c.id DESC LIMIT $6`,
          [q, request.projectIds, request.includeInternal, window.above, window.upTo, window.limit],
        );
        return rows;
      },
      expected ?? Infinity,
    ),
  ]);
  const best = new Map<number, RankedHit>();
  for (const hit of [...documents, ...comments]) {
    const held = best.get(hit.ticket_id);
    if (!held || hit.rank > held.rank) best.set(hit.ticket_id, hit);
  }
  // The comments of deleted tickets are left out here, once per ticket found only through its
  // comments, rather than checked for every matching comment in the window.
  const throughComments = [...best.values()]
    .filter((hit) => hit.comment_id !== null)
    .map((hit) => hit.ticket_id);
  if (throughComments.length > 0) {
    const { rows: deleted } = await pool.query<{ ticket_id: number }>(
      'SELECT ticket_id FROM ai_documents WHERE ticket_id = ANY($1::int[]) AND deleted',
      [throughComments],
    );
    for (const row of deleted) best.delete(row.ticket_id);
  }
  return [...best.values()].sort((a, b) => b.rank - a.rank || b.ticket_id - a.ticket_id);
}

/** The page's tickets with where each matched and its highlighted passage, in the page's order. */
async function pageRows(pool: pg.Pool, q: string, page: readonly RankedHit[]): Promise<SearchHitRow[]> {
  const { rows } = await pool.query<SearchHitRow>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS query),
          page AS (SELECT * FROM unnest($2::int[], $3::int[], $4::float8[]) WITH ORDINALITY
                     AS p(ticket_id, comment_id, rank, position)),
          matched AS (
            SELECT p.*, d.project_id, d.ticket_number, d.title, d.status, d.description,
                   CASE WHEN p.comment_id IS NOT NULL THEN 'comment'
                        WHEN to_tsvector('english', d.title) @@ q.query THEN 'title'
                        ELSE 'description' END AS matched_in
              FROM page p JOIN ai_documents d USING (ticket_id), q)
     SELECT m.ticket_id, m.project_id, m.ticket_number, m.title, m.status, m.rank, m.comment_id, m.matched_in,
            ts_headline('english',
                        CASE m.matched_in WHEN 'comment' THEN (SELECT content FROM ai_comments WHERE id = m.comment_id)
                                          WHEN 'title' THEN m.title
                                          ELSE m.description END,
                        q.query, '${HEADLINE}') AS snippet
       FROM matched m, q
      ORDER BY m.position`,
    [q, page.map((hit) => hit.ticket_id), page.map((hit) => hit.comment_id), page.map((hit) => hit.rank)],
  );
  return rows;
}
