import { expect } from 'chai';
import { MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY, validateCalendar } from '../../src/index.js';
import { EVERY_DAY, week, WORKDAYS } from './support.js';

const nineToFive = week(WORKDAYS, [['09:00', '17:00']]);

describe('validateCalendar', () => {
  it('accepts a zone, several intervals a day and holidays; sorts them and drops repeated dates', () => {
    const result = validateCalendar({
      time_zone: 'Europe/Berlin',
      hours: {
        monday: [
          { start: '13:00', end: '17:00' },
          { start: '09:00', end: '12:00' },
        ],
      },
      holidays: [{ date: '2026-12-25', name: 'Christmas' }, { date: '2026-01-01' }, { date: '2026-12-25' }],
    });
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value.hours.monday).to.deep.equal([
      { start: '09:00', end: '12:00' },
      { start: '13:00', end: '17:00' },
    ]);
    expect(result.value.hours.sunday).to.deep.equal([]);
    expect(result.value.holidays).to.deep.equal([
      { date: '2026-01-01', name: null },
      { date: '2026-12-25', name: 'Christmas' },
    ]);
  });

  it('accepts touching intervals and a whole day 00:00-24:00', () => {
    const result = validateCalendar({
      time_zone: 'America/New_York',
      hours: {
        monday: [
          { start: '09:00', end: '12:00' },
          { start: '12:00', end: '17:00' },
        ],
        sunday: [{ start: '00:00', end: '24:00' }],
      },
    });
    expect(result.ok).to.equal(true);
  });

  it('refuses overlapping intervals', () => {
    const result = validateCalendar({
      time_zone: 'America/New_York',
      hours: {
        tuesday: [
          { start: '09:00', end: '12:00' },
          { start: '11:30', end: '17:00' },
        ],
      },
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: { 'hours.tuesday': ['intervals overlap: 09:00-12:00 and 11:30-17:00'] },
    });
  });

  it('spells a zone the way the time-zone data does', () => {
    const result = validateCalendar({ time_zone: 'america/new_york', always_open: true });
    expect(result.ok && result.value.time_zone).to.equal('America/New_York');
  });

  it('refuses an unknown zone', () => {
    const result = validateCalendar({ time_zone: 'Mars/Olympus_Mons', hours: nineToFive });
    expect(result).to.deep.equal({
      ok: false,
      errors: { time_zone: ['time_zone "Mars/Olympus_Mons" is not a known IANA time zone'] },
    });
    expect(validateCalendar({ hours: nineToFive })).to.deep.equal({
      ok: false,
      errors: { time_zone: ['time_zone is required'] },
    });
  });

  it(`refuses 10,000 holidays and accepts ${MAX_HOLIDAYS}`, () => {
    const dates = (count: number): Array<{ date: string }> =>
      Array.from({ length: count }, (_, i) => ({
        date: new Date(Date.UTC(2000, 0, 1) + i * 86_400_000).toISOString().slice(0, 10),
      }));
    expect(validateCalendar({ time_zone: 'UTC', hours: nineToFive, holidays: dates(10_000) })).to.deep.equal({
      ok: false,
      errors: { holidays: [`at most ${MAX_HOLIDAYS} holidays (got 10000)`] },
    });
    expect(
      validateCalendar({ time_zone: 'UTC', hours: nineToFive, holidays: dates(MAX_HOLIDAYS) }).ok,
    ).to.equal(true);
  });

  it('refuses malformed times, empty or reversed intervals, too many intervals, impossible dates', () => {
    const result = validateCalendar({
      time_zone: 'UTC',
      hours: {
        monday: [{ start: '9:00', end: '25:00' }],
        tuesday: [{ start: '17:00', end: '09:00' }],
        wednesday: [{ start: '10:00', end: '10:00' }],
        thursday: Array.from({ length: MAX_INTERVALS_PER_DAY + 1 }, (_, i) => ({
          start: `${String(i).padStart(2, '0')}:00`,
          end: `${String(i).padStart(2, '0')}:30`,
        })),
        funday: [],
      },
      holidays: [{ date: '2026-02-30' }, { date: 'tomorrow' }, 'x'],
    });
    expect(result).to.deep.equal({
      ok: false,
      errors: {
        'hours.monday[0].start': ['start must be a local time HH:MM from 00:00 to 24:00'],
        'hours.monday[0].end': ['end must be a local time HH:MM from 00:00 to 24:00'],
        'hours.tuesday[0]': ['start must be before end'],
        'hours.wednesday[0]': ['start must be before end'],
        'hours.thursday': [`at most ${MAX_INTERVALS_PER_DAY} intervals a day`],
        'hours.funday': ['Unknown weekday (monday ... sunday)'],
        'holidays[0].date': ['date must be a calendar date YYYY-MM-DD between 1970 and 2200'],
        'holidays[1].date': ['date must be a calendar date YYYY-MM-DD between 1970 and 2200'],
        'holidays[2]': ['holiday must be an object {date, name?}'],
      },
    });
  });

  it('refuses a business calendar without working time, and hours or holidays on a 24x7 one', () => {
    expect(validateCalendar({ time_zone: 'UTC', hours: {} })).to.deep.equal({
      ok: false,
      errors: { hours: ['a business calendar needs at least one working interval (or always_open)'] },
    });
    expect(
      validateCalendar({
        time_zone: 'UTC',
        always_open: true,
        hours: week(EVERY_DAY, [['00:00', '24:00']]),
        holidays: [{ date: '2026-12-25' }],
      }),
    ).to.deep.equal({
      ok: false,
      errors: {
        hours: ['a 24x7 calendar (always_open) has no working hours'],
        holidays: ['a 24x7 calendar (always_open) has no holidays'],
      },
    });
    expect(validateCalendar({ time_zone: 'Asia/Kolkata', always_open: true }).ok).to.equal(true);
  });

  it('answers garbage with errors, never an exception', () => {
    for (const input of [
      null,
      42,
      'x',
      [],
      { time_zone: 7, hours: 'all', holidays: {} },
      { time_zone: 'UTC', hours: { monday: 'x' } },
    ]) {
      const result = validateCalendar(input);
      expect(result.ok).to.equal(false);
    }
  });
});
