import { expect } from 'chai';
import {
  changedProjectFields,
  planAddStatus,
  planRemoveStatus,
  planUpdateStatus,
  validateProjectChanges,
  type StatusDefinition,
} from '../../src/projects/project-rules.js';
import { ticketsInStatusMessage } from '../../src/projects/project-service.js';
import { refusal } from './support.js';

const WORKFLOW: StatusDefinition[] = [
  { slug: 'open', label: 'Open', isClosed: false },
  { slug: 'review', label: 'In review', isClosed: false },
  { slug: 'done', label: 'Done', isClosed: true },
];

const order = (statuses: StatusDefinition[]) => statuses.map((status) => status.slug);

describe('workflow edit rules', () => {
  it('project changes: trimmed name, description kept as given, nothing to change refused', async () => {
    expect(validateProjectChanges({ name: ' Acme ', description: ' x ' })).to.deep.equal({
      name: 'Acme',
      description: ' x ',
    });
    expect((await refusal(() => validateProjectChanges({}))).validationErrors).to.deep.equal({
      body: ['Give at least one field to change: name or description'],
    });
    expect(
      changedProjectFields({ name: 'A', description: 'd' }, { name: 'A', description: 'e' }),
    ).to.deep.equal(['description']);
  });

  it('adds at a position, default last, without touching the given workflow', () => {
    expect(order(planAddStatus(WORKFLOW, { slug: 'qa', label: 'QA', isClosed: false }))).to.deep.equal([
      'open',
      'review',
      'done',
      'qa',
    ]);
    expect(
      order(planAddStatus(WORKFLOW, { slug: 'qa', label: 'QA', isClosed: false, position: 0 })),
    ).to.deep.equal(['qa', 'open', 'review', 'done']);
    expect(order(WORKFLOW)).to.deep.equal(['open', 'review', 'done']);
  });

  it('moves a status: the others keep their relative order', () => {
    expect(order(planUpdateStatus(WORKFLOW, 'open', { position: 1 }))).to.deep.equal([
      'review',
      'open',
      'done',
    ]);
    expect(order(planUpdateStatus(WORKFLOW, 'review', { position: 2 }))).to.deep.equal([
      'open',
      'done',
      'review',
    ]);
    expect(planUpdateStatus(WORKFLOW, 'review', { label: ' Peer ' })[1]).to.deep.equal({
      slug: 'review',
      label: 'Peer',
      isClosed: false,
    });
  });

  it('refuses what creation refuses: a closed first status, no closed status, positions out of range', async () => {
    expect(
      (await refusal(() => planUpdateStatus(WORKFLOW, 'open', { isClosed: true }))).validationErrors,
    ).to.deep.equal({ is_closed: ['The first status is where new tickets start, so it cannot be closed'] });
    expect(
      (await refusal(() => planUpdateStatus(WORKFLOW, 'done', { position: -1 }))).validationErrors,
    ).to.deep.equal({ position: ['Position must be from 0 to 2'] });
    expect(
      (await refusal(() => planRemoveStatus(WORKFLOW, 'done', undefined))).validationErrors,
    ).to.deep.equal({
      slug: ['At least one status must be closed (where tickets are resolved)'],
    });
    expect(
      (
        await refusal(() =>
          planAddStatus(WORKFLOW, { slug: 'x', label: 'X', isClosed: false, position: 1.5 }),
        )
      ).validationErrors,
    ).to.deep.equal({ position: ['Position must be from 0 to 3'] });
    expect((await refusal(() => planUpdateStatus(WORKFLOW, 'nope', { label: 'X' }))).message).to.equal(
      'Status not found',
    );
  });

  it('removal: move_to names another remaining status', async () => {
    expect(order(planRemoveStatus(WORKFLOW, 'review', 'open'))).to.deep.equal(['open', 'done']);
    expect(
      (await refusal(() => planRemoveStatus(WORKFLOW, 'review', 'review'))).validationErrors,
    ).to.deep.equal({
      move_to: ['move_to must be another status of the project: open, done'],
    });
  });

  it('the 409 message names the count and the status label, singular or plural', () => {
    expect(ticketsInStatusMessage(1, 'In review')).to.equal(
      '1 ticket is in "In review"; choose a status to move them to (move_to)',
    );
    expect(ticketsInStatusMessage(3, 'In review')).to.equal(
      '3 tickets are in "In review"; choose a status to move them to (move_to)',
    );
  });
});
