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

const TICKET_NUMBER = /^[A-Za-z][A-Za-z0-9]*-[1-9][0-9]{0,9}$/;
/**
 * Matching tickets and matching comments ranked at most, the newest of each: ranking is the cost,
 * and a query matching more than this is one to refine. `total` counts what is ranked, so every page
 * it announces can be reached.
 */
export const SEARCH_RANKED = 1_000;
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
  const { rows } = await pool.query<SearchHitRow & { total: number }>(
    `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS query),
          document_hits AS (
            SELECT d.ticket_id, ts_rank_cd(d.tsv, q.query) AS rank, NULL::int AS comment_id
              FROM (SELECT ticket_id, tsv FROM ai_documents, q
                     WHERE project_id = ANY($2::int[]) AND NOT deleted AND tsv @@ q.query
                     ORDER BY ticket_id DESC LIMIT ${SEARCH_RANKED}) d, q),
          comment_hits AS (
            SELECT c.ticket_id, 0.8 * ts_rank_cd(c.tsv, q.query) AS rank, c.id AS comment_id
              FROM (SELECT c.id, c.ticket_id, c.tsv FROM ai_comments c, q
                     WHERE c.project_id = ANY($2::int[]) AND NOT c.deleted AND ($3 OR NOT c.is_internal)
                       AND c.tsv @@ q.query
                       AND NOT EXISTS (SELECT 1 FROM ai_documents d WHERE d.ticket_id = c.ticket_id AND d.deleted)
                     ORDER BY c.id DESC LIMIT ${SEARCH_RANKED}) c, q),
          best AS (
            SELECT DISTINCT ON (ticket_id) ticket_id, rank, comment_id
              FROM (SELECT * FROM document_hits UNION ALL SELECT * FROM comment_hits) hits
             ORDER BY ticket_id, rank DESC, comment_id NULLS FIRST),
          page AS (
            SELECT *, count(*) OVER () AS total FROM best
             ORDER BY rank DESC, ticket_id DESC
             LIMIT $4 OFFSET $5)
     SELECT p.ticket_id, d.project_id, d.ticket_number, d.title, d.status, p.rank, p.comment_id,
            p.total::int AS total,
            CASE WHEN p.comment_id IS NOT NULL THEN 'comment'
                 WHEN to_tsvector('english', d.title) @@ q.query THEN 'title'
                 ELSE 'description' END AS matched_in,
            ts_headline('english',
                        CASE WHEN p.comment_id IS NOT NULL THEN (SELECT content FROM ai_comments WHERE id = p.comment_id)
                             WHEN to_tsvector('english', d.title) @@ q.query THEN d.title
                             ELSE d.description END,
                        q.query, '${HEADLINE}') AS snippet
       FROM page p JOIN ai_documents d USING (ticket_id), q
      ORDER BY p.rank DESC, p.ticket_id DESC`,
    [q, request.projectIds, request.includeInternal, request.page.perPage, request.page.offset],
  );
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && request.page.offset > 0) {
    // Past the last page: how many the search ranks, for the pagination object.
    const counted = await pool.query<{ total: number }>(
      `WITH q AS (SELECT websearch_to_tsquery('english', $1) AS query)
       SELECT count(DISTINCT ticket_id)::int AS total FROM (
         (SELECT ticket_id FROM ai_documents, q
           WHERE project_id = ANY($2::int[]) AND NOT deleted AND tsv @@ q.query
           ORDER BY ticket_id DESC LIMIT ${SEARCH_RANKED})
         UNION ALL
         (SELECT c.ticket_id FROM ai_comments c, q
           WHERE c.project_id = ANY($2::int[]) AND NOT c.deleted AND ($3 OR NOT c.is_internal)
             AND c.tsv @@ q.query
             AND NOT EXISTS (SELECT 1 FROM ai_documents d WHERE d.ticket_id = c.ticket_id AND d.deleted)
           ORDER BY c.id DESC LIMIT ${SEARCH_RANKED})) matches`,
      [q, request.projectIds, request.includeInternal],
    );
    total = counted.rows[0]?.total ?? 0;
  }
  return {
    hits: rows.map((row) => ({ ...row, snippet: markSnippet(row.snippet) })),
    pagination: paginationOf(total, request.page),
  };
}
