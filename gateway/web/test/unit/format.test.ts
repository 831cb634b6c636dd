import { expect } from 'chai';
import {
  ACTION_TYPES,
  actionLabel,
  changeText,
  confidenceText,
  percent,
  statusLabel,
  valueText,
  when,
} from '../../src/screens/assistant/format';
import { effectiveText } from '../../src/screens/assistant/autonomy';

describe('how the assistant’s screens word things', () => {
  it('labels every action type of the contract, and words an unknown one', () => {
    for (const type of ACTION_TYPES) expect(actionLabel(type)).to.not.include('_');
    expect(actionLabel('set_priority')).to.equal('Set priority');
    expect(actionLabel('close_duplicate')).to.equal('Close as duplicate');
    expect(actionLabel('reopen_ticket')).to.equal('reopen ticket');
  });

  it('capitalises a status', () => {
    expect(statusLabel('pending_review')).to.equal('Pending review');
    expect(statusLabel('failed')).to.equal('Failed');
  });

  it('writes percentages and confidences, a dash for none', () => {
    expect(percent(0.8234)).to.equal('82%');
    expect(percent(0.8234, 1)).to.equal('82.3%');
    expect(percent(null)).to.equal('–');
    expect(percent(undefined)).to.equal('–');
    expect(percent(0)).to.equal('0%');
    expect(confidenceText(0.91, 'high')).to.equal('91% (high)');
  });

  it('writes a time in the reader’s locale, the text itself when it is no time, a dash for none', () => {
    expect(when(null)).to.equal('–');
    expect(when('')).to.equal('–');
    expect(when('not a time')).to.equal('not a time');
    expect(when('2026-03-04T10:00:00Z')).to.match(/2026/);
  });

  it('words any JSON value: lists joined, null and empty as none, objects by field', () => {
    expect(valueText(null)).to.equal('none');
    expect(valueText([])).to.equal('none');
    expect(valueText(['login', 'vip'])).to.equal('login, vip');
    expect(valueText(3)).to.equal('3');
    expect(valueText(true)).to.equal('true');
    expect(valueText({ assignee_id: 4, tags: ['a'] })).to.equal('assignee id 4; tags a');
  });

  it('writes an action’s change field by field, before → after', () => {
    expect(changeText({ priority: 'medium', tags: [] }, { priority: 'high', tags: ['login'] })).to.deep.equal(
      ['priority: medium → high', 'tags: none → login'],
    );
    expect(changeText({}, { assignee_id: 5 })).to.deep.equal(['assignee id: none → 5']);
  });

  it('words the effective autonomy status, an unknown one as it is', () => {
    expect(effectiveText('killed')).to.equal('Stopped by the kill switch');
    expect(effectiveText('disabled')).to.match(/^Shadow mode/);
    expect(effectiveText('unheard_of')).to.equal('unheard_of');
  });
});
