import { expect } from 'chai';
import { DEFAULT_STATUSES_SPEC, parseStatusesSpec, StatusesSpecError } from '../../src/cli/statuses-spec.js';

describe('CLI --statuses SPEC', () => {
  it('parses the documented default into the default workflow, in order', () => {
    expect(parseStatusesSpec(DEFAULT_STATUSES_SPEC)).to.deep.equal([
      { slug: 'open', label: 'Open', is_closed: false },
      { slug: 'work_in_progress', label: 'Work in progress', is_closed: false },
      { slug: 'waiting', label: 'Waiting', is_closed: false },
      { slug: 'closed', label: 'Closed', is_closed: true },
    ]);
  });

  it('trims spaces around entries and parts', () => {
    expect(parseStatusesSpec(' triage : Triage , done:Done : closed ')).to.deep.equal([
      { slug: 'triage', label: 'Triage', is_closed: false },
      { slug: 'done', label: 'Done', is_closed: true },
    ]);
  });

  it('leaves slug and label rules to the service (shape only)', () => {
    expect(parseStatusesSpec('Bad Slug:x:closed')).to.deep.equal([
      { slug: 'Bad Slug', label: 'x', is_closed: true },
    ]);
  });

  const refusals: [string, string][] = [
    ['', '--statuses is empty'],
    [' , ', '--statuses is empty'],
    ['open', '--statuses entry 1 ("open") must be slug:Label or slug:Label:closed'],
    ['open:Open,,closed:Closed:closed', '--statuses entry 2 ("") is empty (two commas in a row?)'],
    [
      'open:Open:closed:x',
      '--statuses entry 1 ("open:Open:closed:x") must be slug:Label or slug:Label:closed',
    ],
    [
      'open:Open:done',
      '--statuses entry 1 ("open:Open:done"): the third part can only be "closed", got "done"',
    ],
    [':Open', '--statuses entry 1 (":Open") has no slug'],
    ['open:', '--statuses entry 1 ("open:") has no label'],
  ];
  for (const [spec, message] of refusals) {
    it(`refuses ${JSON.stringify(spec)}`, () => {
      expect(() => parseStatusesSpec(spec))
        .to.throw(StatusesSpecError)
        .with.property('message', message);
    });
  }
});
