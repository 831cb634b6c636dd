import { expect } from 'chai';
import { DEFAULT_WORKFLOW, validateNewProject } from '../../src/projects/project-rules.js';
import { describe422, refusal } from './support.js';

const valid = { name: 'Acme', slug: 'acme', prefix: 'AC', description: '', statuses: [] };

describe('project rules', () => {
  it('fills in the default workflow when no statuses are given, and trims the name', () => {
    expect(validateNewProject({ ...valid, name: '  Acme  ' })).to.deep.equal({
      name: 'Acme',
      slug: 'acme',
      prefix: 'AC',
      description: '',
      statuses: [
        { slug: 'open', label: 'Open', isClosed: false },
        { slug: 'work_in_progress', label: 'Work in progress', isClosed: false },
        { slug: 'waiting', label: 'Waiting', isClosed: false },
        { slug: 'closed', label: 'Closed', isClosed: true },
      ],
    });
    expect(DEFAULT_WORKFLOW).to.have.length(4);
  });

  it('accepts the boundary values of every identifier', () => {
    const project = validateNewProject({
      name: 'x'.repeat(200),
      slug: `0${'-'.repeat(63)}`,
      prefix: `A${'9'.repeat(15)}`,
      description: 'd'.repeat(2000),
      statuses: [
        { slug: `a${'_'.repeat(63)}`, label: 'l'.repeat(100), isClosed: false },
        { slug: 'z9', label: 'Z', isClosed: true },
      ],
    });
    expect(project.statuses).to.have.length(2);
  });

  it('reports every invalid field at once, 422', async () => {
    const error = await refusal(() =>
      validateNewProject({
        name: ' ',
        slug: 'Acme',
        prefix: 'ac',
        description: 'd'.repeat(2001),
        statuses: [],
      }),
    );
    expect(describe422(error)).to.deep.equal({
      kind: 'validation_failed',
      message: 'Validation failed',
      validationErrors: {
        name: ['Name is required'],
        slug: ['Slug must be 1-64 lowercase letters, digits or hyphens, starting with a letter or digit'],
        prefix: ['Prefix must be 1-16 uppercase letters or digits, starting with a letter'],
        description: ['Description must be at most 2000 characters'],
      },
    });
  });

  it('refuses over-long identifiers', async () => {
    const error = await refusal(() =>
      validateNewProject({ ...valid, name: 'x'.repeat(201), slug: 'a'.repeat(65), prefix: 'A'.repeat(17) }),
    );
    expect(Object.keys(error.validationErrors!)).to.deep.equal(['name', 'slug', 'prefix']);
  });

  it('refuses bad statuses, naming each by position', async () => {
    const error = await refusal(() =>
      validateNewProject({
        ...valid,
        statuses: [
          { slug: 'open', label: 'Open', isClosed: false },
          { slug: 'Open', label: '', isClosed: false },
          { slug: 'open', label: 'Again', isClosed: true },
        ],
      }),
    );
    expect(error.validationErrors).to.deep.equal({
      'statuses[1].slug': [
        'Status slug must be 1-64 lowercase letters, digits or underscores, starting with a letter',
      ],
      'statuses[1].label': ['Status label is required'],
      'statuses[2].slug': ['Status slug "open" is used more than once'],
    });
  });

  it('reserves the status slug "total" (the board counts object uses it)', async () => {
    const error = await refusal(() =>
      validateNewProject({
        ...valid,
        statuses: [
          { slug: 'open', label: 'Open', isClosed: false },
          { slug: 'total', label: 'Total', isClosed: true },
        ],
      }),
    );
    expect(error.validationErrors).to.deep.equal({ 'statuses[1].slug': ['Status slug "total" is reserved'] });
  });

  it('requires a closed status, and an open first status (where new tickets start)', async () => {
    const noClosed = await refusal(() =>
      validateNewProject({ ...valid, statuses: [{ slug: 'open', label: 'Open', isClosed: false }] }),
    );
    expect(noClosed.validationErrors).to.deep.equal({
      statuses: ['At least one status must be closed (where tickets are resolved)'],
    });
    const closedFirst = await refusal(() =>
      validateNewProject({
        ...valid,
        statuses: [
          { slug: 'done', label: 'Done', isClosed: true },
          { slug: 'open', label: 'Open', isClosed: false },
        ],
      }),
    );
    expect(closedFirst.validationErrors).to.deep.equal({
      statuses: ['The first status is where new tickets start, so it cannot be closed'],
    });
  });

  it('refuses more than 50 statuses', async () => {
    const statuses = Array.from({ length: 51 }, (_, i) => ({
      slug: `s${i}`,
      label: `S${i}`,
      isClosed: i === 50,
    }));
    const error = await refusal(() => validateNewProject({ ...valid, statuses }));
    expect(error.validationErrors).to.deep.equal({ statuses: ['A workflow has at most 50 statuses'] });
  });
});
