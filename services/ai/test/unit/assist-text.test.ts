import { expect } from 'chai';
import { composeReply, toHtml } from '../../src/assist/compose.js';
import { redact } from '../../src/assist/redact.js';
import { tagVotes, vote } from '../../src/predictions/knn.js';
import type { Neighbour } from '../../src/retrieval/retriever.js';

describe('the text of suggestions', () => {
  it('redacts e-mail addresses, token URLs, phone numbers and long digit runs, counting them', () => {
    const { text, redactions } = redact(
      'Write to ann@example.com or call +44 20 7946 0958. Order 12345678 is fine; ' +
        'reset at https://app.example.com/reset?token=abc123 or https://x.io/r/AbCdEf0123456789xyz. Step 2 of 3.',
    );
    expect(text).to.equal(
      'Write to [redacted] or call [redacted]. Order [redacted] is fine; reset at [redacted] or [redacted]. Step 2 of 3.',
    );
    expect(redactions).to.equal(5);
  });

  it('redacts in time linear in the text, so a long comment never holds the service', () => {
    // An unanchored `[...]+@` is quadratic on a run without an @: 4x the text took 16x the time.
    const shapes = [
      (n: number) => 'a'.repeat(n),
      (n: number) => '1.'.repeat(n / 2),
      (n: number) => 'x@' + 'a.'.repeat(n / 2),
    ];
    const fastest = (text: string) => {
      let best = Infinity;
      for (let run = 0; run < 3; run += 1) {
        const started = performance.now();
        redact(text);
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    for (const shape of shapes) {
      const small = fastest(shape(20_000));
      const large = fastest(shape(80_000));
      // Linear growth is 4x; allow noise on a busy machine, far below the quadratic 16x.
      expect(large / Math.max(small, 0.5), shape(8)).to.be.below(10);
    }
  });

  it("replaces the source's greeting with the tone's, and escapes the HTML form", () => {
    const reply = composeReply('Hi Anna,\n\nPlease clear the cache <b>now</b>.\nThanks', 'formal');
    expect(reply.content).to.equal('Dear customer,\n\nPlease clear the cache <b>now</b>.\nThanks');
    expect(reply.contentHtml).to.equal(
      '<p>Dear customer,</p><p>Please clear the cache &lt;b&gt;now&lt;/b&gt;.<br>Thanks</p>',
    );
    expect(composeReply('Please retry.', 'friendly').content).to.equal('Hi there,\n\nPlease retry.');
    expect(toHtml('a\n\n\n b')).to.equal('<p>a</p><p>b</p>');
  });
});

const neighbour = (similarity: number, priority: string, tags: string[] = []): Neighbour => ({
  ticketId: 1,
  projectId: 1,
  ticketNumber: 'SUP-1',
  title: 't',
  similarity,
  priority,
  tags,
  assignedTo: null,
  resolutionReply: null,
  resolutionCommentId: null,
  closedAt: null,
});

describe('k nearest neighbour votes', () => {
  it('weighs votes by similarity and lowers confidence when the neighbours are weak', () => {
    const strong = vote(
      [neighbour(0.9, 'high'), neighbour(0.9, 'high'), neighbour(0.9, 'high'), neighbour(0.6, 'low')],
      (n) => n.priority,
    );
    expect(strong).to.deep.include({ value: 'high', agreeing: 3, voting: 4 });
    expect(strong!.confidence).to.be.closeTo(2.7 / 3.3, 0.001);
    const weak = vote([neighbour(0.3, 'high')], (n) => n.priority);
    expect(weak!.confidence).to.be.closeTo(0.1, 0.001);
    expect(vote([], (n) => n.priority)).to.equal(null);
  });

  it('suggests the tags that carry at least half of the similarity', () => {
    const votes = tagVotes([
      neighbour(1, 'x', ['login', 'sso']),
      neighbour(1, 'x', ['login']),
      neighbour(1, 'x', ['billing']),
    ]);
    expect(votes!.tags).to.deep.equal(['login']);
  });
});
