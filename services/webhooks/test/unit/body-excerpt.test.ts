import { expect } from 'chai';
import { BODY_EXCERPT_BYTES, bodyExcerpt } from '../../src/delivery/body-excerpt.js';

describe('body excerpts of the delivery log', () => {
  it('keeps a body up to the cap whole, unflagged', () => {
    const body = 'a'.repeat(BODY_EXCERPT_BYTES);
    expect(bodyExcerpt(body)).to.deep.equal({ text: body, truncated: false });
    expect(bodyExcerpt('')).to.deep.equal({ text: '', truncated: false });
  });

  it('cuts a longer body at the cap and flags it', () => {
    const excerpt = bodyExcerpt(Buffer.from('b'.repeat(BODY_EXCERPT_BYTES + 1)));
    expect(excerpt.text).to.have.length(BODY_EXCERPT_BYTES);
    expect(excerpt.truncated).to.equal(true);
  });

  it('never splits a character: one cut in half is left out', () => {
    // 4095 ASCII bytes, then a 2-byte character straddling the cap.
    const excerpt = bodyExcerpt(`${'c'.repeat(BODY_EXCERPT_BYTES - 1)}éxyz`);
    expect(excerpt.text).to.equal('c'.repeat(BODY_EXCERPT_BYTES - 1));
    expect(excerpt.truncated).to.equal(true);
  });

  it('flags a body that was not read to its end', () => {
    expect(bodyExcerpt('short', true)).to.deep.equal({ text: 'short', truncated: true });
  });
});
