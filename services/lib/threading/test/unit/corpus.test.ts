import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import {
  decideThread,
  isRefusal,
  machineKind,
  mayAutoReply,
  parseInbound,
  replyHtml,
} from '../../src/index.js';
import { world } from './world.js';

interface Case {
  file: string;
  note: string;
  expect: Record<string, unknown>;
  checks?: {
    visibleText?: string;
    subject?: string;
    textContains?: string;
    fromName?: string;
    htmlEquals?: string;
    /** replyHtml of the HTML body, the inline image with cid `c` at attachments/<its index + 1>. */
    visibleHtml?: string | null;
    machine?: string | null;
    mayAutoReply?: boolean;
    attachments?: { filename: string; contentType: string; cid: string | null }[];
  };
}

const dir = fileURLToPath(new URL('../corpus/', import.meta.url));
const cases = JSON.parse(readFileSync(`${dir}cases.json`, 'utf8')) as Case[];

describe('threading corpus (test/corpus/*.eml, outcomes in cases.json)', () => {
  it('has at least 80 cases', () => {
    expect(cases.length).to.be.at.least(80);
  });

  it('routes every case as stated, with no throw', async () => {
    const failures: string[] = [];
    for (const c of cases) {
      const raw = readFileSync(`${dir}${c.file}`);
      let outcome: unknown;
      try {
        const parsed = await parseInbound(raw);
        if (isRefusal(parsed)) {
          outcome = parsed;
        } else {
          outcome = await decideThread(parsed, world());
          const k = c.checks ?? {};
          const got: Record<string, unknown> = {};
          const want: Record<string, unknown> = {};
          if (k.visibleText !== undefined)
            [got.visibleText, want.visibleText] = [parsed.visibleText, k.visibleText];
          if (k.subject !== undefined)
            [got.subject, want.subject] = [parsed.subject.includes(k.subject), true];
          if (k.textContains !== undefined)
            [got.text, want.text] = [parsed.text.includes(k.textContains), true];
          if (k.fromName !== undefined) [got.fromName, want.fromName] = [parsed.from?.name, k.fromName];
          if (k.htmlEquals !== undefined) [got.html, want.html] = [parsed.html, k.htmlEquals];
          if (k.visibleHtml !== undefined) {
            const cids = parsed.attachments.map((a) => a.cid?.toLowerCase() ?? null);
            const imageUrl = (cid: string) =>
              cids.includes(cid) ? `/attachments/${cids.indexOf(cid) + 1}/download` : null;
            [got.visibleHtml, want.visibleHtml] = [replyHtml(parsed.htmlSource, { imageUrl }), k.visibleHtml];
          }
          if (k.machine !== undefined) [got.machine, want.machine] = [machineKind(parsed), k.machine];
          if (k.mayAutoReply !== undefined)
            [got.mayAutoReply, want.mayAutoReply] = [mayAutoReply(parsed), k.mayAutoReply];
          if (k.attachments !== undefined) {
            got.attachments = parsed.attachments.map((a) => ({
              filename: a.filename,
              contentType: a.contentType,
              cid: a.cid,
            }));
            want.attachments = k.attachments;
          }
          if (JSON.stringify(got) !== JSON.stringify(want)) {
            failures.push(`${c.file}: checks ${JSON.stringify(got)} != ${JSON.stringify(want)}`);
          }
        }
      } catch (error) {
        failures.push(`${c.file}: threw ${String(error)}`);
        continue;
      }
      if (JSON.stringify(outcome) !== JSON.stringify(c.expect)) {
        failures.push(
          `${c.file} (${c.note}): got ${JSON.stringify(outcome)}, want ${JSON.stringify(c.expect)}`,
        );
      }
    }
    expect(failures, failures.join('\n')).to.deep.equal([]);
  });

  it('decides a re-delivered message the same way twice', async () => {
    const raw = readFileSync(`${dir}${cases[0]!.file}`);
    const a = await parseInbound(raw);
    const b = await parseInbound(raw);
    if (isRefusal(a) || isRefusal(b)) throw new Error('refused');
    expect(await decideThread(a, world())).to.deep.equal(await decideThread(b, world()));
  });
});
