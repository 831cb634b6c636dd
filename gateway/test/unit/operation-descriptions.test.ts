/**
 * The catalogue of operation prose (resources/descriptions/): each entry belongs to exactly one
 * declared operation, so no description is left behind when an operation is renamed or removed.
 */
import { expect } from 'chai';
import { DESCRIPTION_AREAS, OPERATION_DESCRIPTIONS } from '../../src/resources/descriptions/index.js';
import { OPERATIONS } from '../../src/routes/index.js';

describe('the operation descriptions', () => {
  it('each name a declared operation', () => {
    const ids = new Set(OPERATIONS.map((operation) => operation.operationId));
    expect(Object.keys(OPERATION_DESCRIPTIONS).filter((id) => !ids.has(id))).to.deep.equal([]);
  });

  it('stand in one area each, none empty', () => {
    const keys = DESCRIPTION_AREAS.flatMap((area) => Object.keys(area));
    expect(keys.length).to.equal(new Set(keys).size);
    expect(Object.values(OPERATION_DESCRIPTIONS).filter((text) => text.trim() === '')).to.deep.equal([]);
  });
});
