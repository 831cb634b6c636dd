import { expect } from 'chai';
import * as format from '../../src/screens/assistant/format';
import { effectiveText } from '../../src/screens/assistant/autonomy';

describe('how the assistant’s screens word things', () => {
  it('labels every action type of the contract, and words an unknown one', () => {
    for (const type of format.ACTION_TYPES) expect(format.actionLabel(type)).to.not.include('_');
    expect(format.actionLabel('set_priority')).to.equal('Set priority');
    expect(format.actionLabel('close_duplicate')).to.equal('Close as duplicate');
    expect(format.actionLabel('reopen_ticket')).to.equal('reopen ticket');
  });

  it('capitalises a status', () => {
    expect(format.statusLabel('pending_review')).to.equal('Pending review');
    expect(format.statusLabel('failed')).to.equal('Failed');
  });

  it('writes percentages and confidences, a dash for none', () => {
    expect(format.percent(0.8234)).to.equal('82%');
    expect(format.percent(0.8234, 1)).to.equal('82.3%');
    expect(format.percent(null)).to.equal('–');
    expect(format.percent(undefined)).to.equal('–');
    expect(format.percent(0)).to.equal('0%');
    expect(format.confidenceText(0.91, 'high')).to.equal('91% (high)');
  });

  it('writes a time in the reader’s locale, the text itself when it is no time, a dash for none', () => {
    expect(format.when(null)).to.equal('–');
    expect(format.when('')).to.equal('–');
    expect(format.when('not a time')).to.equal('not a time');
    expect(format.when('2026-03-04T10:00:00Z')).to.match(/2026/);
  });

  it('words any JSON value: lists joined, null and empty as none, objects by field', () => {
    expect(format.valueText(null)).to.equal('none');
    expect(format.valueText([])).to.equal('none');
    expect(format.valueText(['login', 'vip'])).to.equal('login, vip');
    expect(format.valueText(3)).to.equal('3');
    expect(format.valueText(true)).to.equal('true');
    expect(format.valueText({ assignee_id: 4, tags: ['a'] })).to.equal('assignee id 4; tags a');
  });

  it('writes an action’s change field by field, before → after', () => {
    expect(
      format.changeText({ priority: 'medium', tags: [] }, { priority: 'high', tags: ['login'] }),
    ).to.deep.equal(['priority: medium → high', 'tags: none → login']);
    expect(format.changeText({}, { assignee_id: 5 })).to.deep.equal(['assignee id: none → 5']);
  });

  it('words the effective autonomy status, an unknown one as it is', () => {
    expect(effectiveText('killed')).to.equal('Stopped by the kill switch');
    expect(effectiveText('disabled')).to.match(/^Shadow mode/);
    expect(effectiveText('unheard_of')).to.equal('unheard_of');
  });
});
